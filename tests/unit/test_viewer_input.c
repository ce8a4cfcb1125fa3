/* The viewer's translations: SDL keys and characters to X keysyms, SDL
 * buttons to RFB masks, Latin-1 cut text, and VNC password files. */
#include <SDL_mouse.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/vg_error.h"
#include "tests/vg_testutil.h"
#include "viewer/vg_keymap.h"
#include "capture/vg_latin1.h"
#include "capture/vg_passwd.h"

static void test_special_keys(void)
{
	g_assert_cmphex(vg_keymap_special(SDLK_RETURN), ==, 0xff0d);
	g_assert_cmphex(vg_keymap_special(SDLK_BACKSPACE), ==, 0xff08);
	g_assert_cmphex(vg_keymap_special(SDLK_LEFT), ==, 0xff51);
	g_assert_cmphex(vg_keymap_special(SDLK_F1), ==, 0xffbe);
	g_assert_cmphex(vg_keymap_special(SDLK_F12), ==, 0xffc9);
	g_assert_cmphex(vg_keymap_special(SDLK_LSHIFT), ==, 0xffe1);
	g_assert_cmphex(vg_keymap_special(SDLK_RCTRL), ==, 0xffe4);
	g_assert_cmphex(vg_keymap_special(SDLK_LGUI), ==, 0xffeb);
	g_assert_cmphex(vg_keymap_special(SDLK_KP_ENTER), ==, 0xff8d);
	/* Text keys travel as text events. */
	g_assert_cmphex(vg_keymap_special(SDLK_a), ==, 0);
	g_assert_cmphex(vg_keymap_special(SDLK_SPACE), ==, 0);
	g_assert_cmphex(vg_keymap_special(SDLK_KP_1), ==, 0);
}

static void test_characters(void)
{
	g_assert_cmphex(vg_keymap_unicode('a'), ==, 0x61);
	g_assert_cmphex(vg_keymap_unicode('A'), ==, 0x41);
	g_assert_cmphex(vg_keymap_unicode(' '), ==, 0x20);
	g_assert_cmphex(vg_keymap_unicode(0xe9), ==, 0xe9);          /* é: Latin-1 keysym */
	g_assert_cmphex(vg_keymap_unicode(0x430), ==, 0x1000430);    /* Cyrillic а */
	g_assert_cmphex(vg_keymap_unicode(0x20ac), ==, 0x10020ac);   /* € */
	g_assert_cmphex(vg_keymap_unicode(0x1f600), ==, 0x101f600);
	g_assert_cmphex(vg_keymap_unicode('\n'), ==, 0);
	g_assert_cmphex(vg_keymap_unicode(0x85), ==, 0);
	g_assert_cmphex(vg_keymap_unicode(0xd800), ==, 0);
	g_assert_cmphex(vg_keymap_unicode(0x110000), ==, 0);
	g_assert_cmphex(vg_keymap_chord(SDLK_c), ==, 'c');
	g_assert_cmphex(vg_keymap_chord(SDLK_F1), ==, 0);
	g_assert_cmpint(vg_keymap_button(SDL_BUTTON_LEFT), ==, 1);
	g_assert_cmpint(vg_keymap_button(SDL_BUTTON_MIDDLE), ==, 2);
	g_assert_cmpint(vg_keymap_button(SDL_BUTTON_RIGHT), ==, 4);
	g_assert_cmpint(vg_keymap_button(SDL_BUTTON_X2), ==, 0);
}

static void test_latin1(void)
{
	char *s;
	size_t n;

	s = vg_latin1_to_utf8("caf\xe9 \xb5", 6);
	g_assert_cmpstr(s, ==, "café µ");
	g_free(s);
	s = vg_latin1_to_utf8("a\0b", 3);
	g_assert_cmpstr(s, ==, "ab");
	g_free(s);
	s = vg_latin1_from_utf8("café\r\nЖ€;", &n);
	g_assert_cmpuint(n, ==, 8);
	g_assert_cmpmem(s, n, "caf\xe9\n??;", 8);
	g_free(s);
	/* Malformed UTF-8 is skipped, not copied. */
	s = vg_latin1_from_utf8("a\xff\xfe" "b", &n);
	g_assert_cmpmem(s, n, "ab", 2);
	g_free(s);
}

/* Files as TigerVNC 1.12's `vncpasswd -f` wrote them. */
static void test_passwd_files(void)
{
	static const guint8 secret[8] = { 0x2e, 0x2d, 0xbf, 0x57, 0x6e, 0xb0, 0x6c, 0x9e };
	static const guint8 digits[8] = { 0xf0, 0xe4, 0x31, 0x64, 0xf6, 0xc2, 0xe3, 0x73 };
	g_autofree char *dir = g_dir_make_tmp("varg-passwd-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "passwd", NULL);
	g_autofree char *again = NULL;
	char *pw = NULL;

	g_assert_true(g_file_set_contents(path, (const char *)secret, 8, NULL));
	g_assert_cmpint(vg_passwd_read_file(path, &pw), ==, 0);
	g_assert_cmpstr(pw, ==, "secret");
	g_free(pw);
	g_assert_true(g_file_set_contents(path, (const char *)digits, 8, NULL));
	g_assert_cmpint(vg_passwd_read_file(path, &pw), ==, 0);
	g_assert_cmpstr(pw, ==, "12345678");
	g_free(pw);
	g_assert_cmpint(vg_passwd_write_file(path, "secret"), ==, 0);
	g_assert_true(g_file_get_contents(path, &again, NULL, NULL));
	g_assert_cmpmem(again, 8, secret, 8);
	{
		struct stat st;

		g_assert_cmpint(stat(path, &st), ==, 0);
		g_assert_cmpuint(st.st_mode & 0777, ==, 0600);
	}
	g_assert_cmpint(vg_passwd_write_file(path, "123456789"), ==, VG_EINVAL);
	g_assert_true(g_file_set_contents(path, "short", 5, NULL));
	g_assert_cmpint(vg_passwd_read_file(path, &pw), ==, VG_EFORMAT);
	g_assert_cmpint(vg_passwd_read_file("/nonexistent/passwd", &pw), ==, VG_EIO);
	vg_test_rm_rf(dir);
}

/* A file written now by the installed TigerVNC vncpasswd (tigervnc-tools),
 * and one of ours read back by it: the format is theirs. */
static void test_passwd_tigervnc(void)
{
	g_autofree char *tool = g_find_program_in_path("tigervncpasswd");
	g_autofree char *dir = g_dir_make_tmp("varg-passwd-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "passwd", NULL);
	g_autofree char *cmd = NULL;
	g_autofree char *theirs = NULL;
	g_autofree char *ours = NULL;
	char *pw = NULL;
	int status;

	if (!tool) {
		g_test_skip("tigervncpasswd not installed (Debian package tigervnc-tools)");
		return;
	}
	cmd = g_strdup_printf("sh -c 'printf \"Tiger7\\n\" | %s -f > %s'", tool, path);
	g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, &status, NULL));
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	g_assert_cmpint(vg_passwd_read_file(path, &pw), ==, 0);
	g_assert_cmpstr(pw, ==, "Tiger7");
	g_free(pw);
	g_assert_true(g_file_get_contents(path, &theirs, NULL, NULL));
	g_assert_cmpint(vg_passwd_write_file(path, "Tiger7"), ==, 0);
	g_assert_true(g_file_get_contents(path, &ours, NULL, NULL));
	g_assert_cmpmem(ours, 8, theirs, 8);
	vg_test_rm_rf(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/viewer-input/special-keys", test_special_keys);
	g_test_add_func("/viewer-input/characters", test_characters);
	g_test_add_func("/viewer-input/latin1", test_latin1);
	g_test_add_func("/viewer-input/passwd-files", test_passwd_files);
	g_test_add_func("/viewer-input/passwd-tigervnc", test_passwd_tigervnc);
	return g_test_run();
}
