/* DES through OpenSSL's low-level interface: VNC's password obfuscation is
 * single DES, which OpenSSL 3 keeps only there (EVP offers it through the
 * legacy provider, which may not be installed). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <fcntl.h>
#include <glib.h>
#include <openssl/des.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common/vg_error.h"
#include "capture/vg_passwd.h"

/* The key every VNC implementation uses for stored passwords. */
static const unsigned char fixed_key[8] = { 23, 82, 107, 6, 35, 78, 88, 7 };

/* VNC's DES takes each key byte with its bits in reverse order. */
static void vnc_key(DES_key_schedule *ks)
{
	DES_cblock key;
	int i, b;

	for (i = 0; i < 8; i++) {
		unsigned char in = fixed_key[i], out = 0;

		for (b = 0; b < 8; b++)
			if (in & (1u << b))
				out |= (unsigned char)(0x80u >> b);
		key[i] = out;
	}
	DES_set_key_unchecked(&key, ks);
}

int vg_passwd_read_file(const char *path, char **out)
{
	g_autofree char *data = NULL;
	DES_key_schedule ks;
	DES_cblock in, plain;
	gsize len;

	if (!g_file_get_contents(path, &data, &len, NULL))
		return VG_EIO;
	if (len < 8)
		return VG_EFORMAT;
	memcpy(in, data, 8);
	vnc_key(&ks);
	DES_ecb_encrypt(&in, &plain, &ks, DES_DECRYPT);
	*out = g_strndup((const char *)plain, 8);
	memset(plain, 0, sizeof plain);
	return VG_OK;
}

int vg_passwd_write_file(const char *path, const char *password)
{
	DES_key_schedule ks;
	DES_cblock plain, enc;
	size_t n = strlen(password);

	if (n > 8)
		return VG_EINVAL;
	memset(plain, 0, sizeof plain);
	memcpy(plain, password, n);
	vnc_key(&ks);
	DES_ecb_encrypt(&plain, &enc, &ks, DES_ENCRYPT);
	if (!g_file_set_contents(path, (const char *)enc, 8, NULL))
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
