/* VNC passwords: the file vncpasswd writes, and a prompt on the terminal. */
#ifndef VG_PASSWD_H
#define VG_PASSWD_H

#include <stddef.h>

/* Reads a VNC password file (the first 8 bytes: the password, padded with
 * NULs, DES-encrypted under VNC's fixed key, as vncpasswd and
 * tigervnc's vncpasswd -f write it). *out is a new string (g_free).
 * VG_EIO if unreadable, VG_EFORMAT if shorter than 8 bytes. Through
 * LibVNC (libvncserver): a program using it links VNCSERVER_LIBS. */
int vg_passwd_read_file(const char *path, char **out);

/* Writes a password file as vncpasswd does (for tests), mode 0600;
 * VG_EINVAL for a password longer than 8 bytes (VNC uses only 8), VG_EIO
 * if it cannot be written. */
int vg_passwd_write_file(const char *path, const char *password);

/* Asks on the controlling terminal without echo. VG_ENOENT when there is
 * no terminal, VG_EIO if reading fails. *out: g_free. */
int vg_passwd_prompt(const char *question, char **out);

#endif
