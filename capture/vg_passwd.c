/* VNC password files through LibVNC's own vncauth (rfbEncryptAndStorePasswd,
 * rfbDecryptPasswdFromFile): the same single DES under VNC's fixed key that
 * vncpasswd writes, done by the library that already does VNC
 * authentication's challenge with that DES (LibVNC's crypto backend,
 * libgcrypt on Debian). OpenSSL 3 keeps single DES only in its deprecated
 * DES_* functions or its legacy provider, which may not be installed and,
 * loaded into the default library context, would widen what TLS may use;
 * LibVNC needs neither. The price: programs that read passwords link
 * libvncserver, where those two functions live. */
#include <fcntl.h>
#include <glib.h>
#include <rfb/rfbproto.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "capture/vg_passwd.h"

int vg_passwd_read_file(const char *path, char **out)
{
	g_autofree char *data = NULL;
	char *plain;
	gsize len;

	/* LibVNC answers only NULL: tell an unreadable file from a short
	 * one first. */
	if (!g_file_get_contents(path, &data, &len, NULL))
		return VG_EIO;
	memset(data, 0, len);
	if (len < 8)
		return VG_EFORMAT;
	plain = rfbDecryptPasswdFromFile((char *)path);
	if (!plain)
		return VG_EIO;
	*out = g_strndup(plain, 8);
	memset(plain, 0, 8);
	free(plain);
	return VG_OK;
}

int vg_passwd_write_file(const char *path, const char *password)
{
	if (strlen(password) > 8)
		return VG_EINVAL;
	/* Created 0600, as vncpasswd does. */
	if (rfbEncryptAndStorePasswd((char *)password, (char *)path) != 0)
		return VG_EIO;
	return VG_OK;
}

int vg_passwd_prompt(const char *question, char **out)
{
	struct termios old, quiet;
	char line[256];
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	FILE *tty;
	bool echo_off;
	char *ok;

	if (fd < 0)
		return VG_ENOENT;
	tty = fdopen(fd, "r+");
	if (!tty) {
		close(fd);
		return VG_EIO;
	}
	echo_off = tcgetattr(fd, &old) == 0;
	if (echo_off) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	fprintf(tty, "%s", question);
	fflush(tty);
	ok = fgets(line, sizeof line, tty);
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	fprintf(tty, "\n");
	fclose(tty);
	if (!ok)
		return VG_EIO;
	line[strcspn(line, "\r\n")] = '\0';
	*out = g_strdup(line);
	memset(line, 0, sizeof line);
	return VG_OK;
}
