/* Clients' input on its way from LibVNCServer's client threads to the
 * thread that owns a source (the only one that may talk to the X display
 * or to the upstream VNC server). A pipe makes the queue pollable, so the
 * source's loop can sleep on its other files and the queue at once.
 */
#ifndef VG_INPUTQUEUE_H
#define VG_INPUTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/vg_server.h"

typedef enum { VG_INPUT_POINTER, VG_INPUT_KEY, VG_INPUT_CUT_TEXT } vg_input_kind;

typedef struct {
	vg_input_kind kind;
	int32_t x, y;             /* POINTER */
	uint8_t buttons;          /* POINTER: RFB button mask */
	uint32_t keysym;          /* KEY */
	bool down;                /* KEY */
	char *text;               /* CUT_TEXT: UTF-8, NUL-terminated */
	size_t len;               /* CUT_TEXT: bytes of text */
} vg_input_event;

typedef struct vg_inputqueue vg_inputqueue;

/* An empty queue; cut text is dropped unless cut_text is set. VG_EIO when
 * no pipe can be made. */
int vg_inputqueue_new(bool cut_text, vg_inputqueue **out);

/* Frees q and the events still in it; accepts NULL. */
void vg_inputqueue_free(vg_inputqueue *q);

/* Points the server's input callbacks at q (any thread may call them). */
void vg_inputqueue_attach(vg_inputqueue *q, vg_server_input *in);

/* Readable when events may wait. */
int vg_inputqueue_fd(const vg_inputqueue *q);

/* The oldest event, or NULL when none waits. Free with
 * vg_input_event_free(). */
vg_input_event *vg_inputqueue_pop(vg_inputqueue *q);

void vg_input_event_free(vg_input_event *e);

#endif
