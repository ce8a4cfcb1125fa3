# server/: varg-server. Uses the libraries' public headers only.
bin_PROGRAMS += server/varg-server
server_varg_server_SOURCES = \
	server/varg_server.c \
	server/vg_server.c server/vg_server.h \
	server/vg_tracesource.c server/vg_tracesource.h
server_varg_server_CFLAGS = $(AM_CFLAGS) $(VNCSERVER_CFLAGS)
server_varg_server_LDADD = traces/libvgtrace.a segment2d/libvgseg.a $(VG_FP_LIBS) $(VNCSERVER_LIBS) $(ZLIB_LIBS) -lpthread
dist_man_MANS += doc/varg-server.1
