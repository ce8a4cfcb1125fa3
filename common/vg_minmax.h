/* The smaller and the larger of two values of the same type (each
 * argument is evaluated twice: give them no side effects). */
#ifndef VG_MINMAX_H
#define VG_MINMAX_H

#define VG_MIN(a, b) (((a) < (b)) ? (a) : (b))
#define VG_MAX(a, b) (((a) > (b)) ? (a) : (b))

#endif
