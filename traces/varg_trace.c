/* varg-trace: make, inspect and convert .vtr traces.
 *
 * Usage: varg-trace COMMAND [OPTION...] [ARG...]; `varg-trace COMMAND
 * --help` describes each command. Commands live in trace_cmd_*.c; adding
 * one is a function and a line in the table below. */
#include "config.h"

#include <glib.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/vg_log.h"
#include "common/vg_time.h"
#include "traces/trace_cmd.h"

typedef int (*command_cb)(int argc, char **argv);

static const struct {
	const char *name;
	command_cb run;
	const char *summary;
} commands[] = {
	{ "import", vg__trace_import, "make a trace from PNG/PPM screenshots or an FBS capture" },
	{ "info", vg__trace_info, "print a trace's geometry, length and compression" },
	{ "export", vg__trace_export, "write every frame of a trace as an image file" },
	{ "record", vg__trace_record, "record a live X display or VNC server" },
	{ "play", vg__trace_play, "show a trace's frames on an X display at the recorded pace" },
	{ "replay-input", vg__trace_replay_input, "play a trace's pointer and key events into an X display" },
	{ "ratio", vg__trace_ratio, "compression ratios and times of Varg and the RFB encodings" },
	{ "model", vg__trace_model, "Equation 1: the modelled ratio of two-level fingerprints" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: varg-trace COMMAND [OPTION...] [ARG...]\n\nCommands:\n");
	for (i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-13s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'varg-trace COMMAND --help' describes a command's options.\n");
}

bool vg__trace_parse_options(GOptionContext *ctx, int *argc, char ***argv)
{
	GError *error = NULL;
	bool ok = g_option_context_parse(ctx, argc, argv, &error);

	if (!ok) {
		vg_error("%s (try --help)", error->message);
		g_error_free(error);
	}
	g_option_context_free(ctx);
	return ok;
}

int vg__trace_usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	g_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	vg_error("%s (try --help)", msg);
	return VG__EXIT_USAGE;
}

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

void vg__trace_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool vg__trace_stopped(void)
{
	return stop_signal != 0;
}

void vg__trace_sleep_until(uint64_t t_ns)
{
	while (!stop_signal) {
		uint64_t now = vg_time_ns();
		struct timespec ts;

		if (now >= t_ns)
			return;
		ts.tv_sec = (time_t)((t_ns - now) / 1000000000u);
		ts.tv_nsec = (long)((t_ns - now) % 1000000000u);
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	g_autofree char *prgname = NULL;
	size_t i;

	vg_log_set_prefix("varg-trace");
	if (argc < 2) {
		GString *names = g_string_new(NULL);

		for (i = 0; i < G_N_ELEMENTS(commands); i++)
			g_string_append_printf(names, "%s%s", i ? ", " : "", commands[i].name);
		vg_error("no command given: %s (try --help)", names->str);
		g_string_free(names, TRUE);
		return VG__EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return VG__EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("varg-trace %s\n", PACKAGE_VERSION);
		return VG__EXIT_OK;
	}
	for (i = 0; i < G_N_ELEMENTS(commands); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			int status;

			prgname = g_strdup_printf("varg-trace %s", commands[i].name);
			g_set_prgname(prgname);
			vg_log_set_prefix(prgname);
			status = commands[i].run(argc - 1, argv + 1);
			vg_log_set_prefix(NULL);
			return status;
		}
	}
	vg_error("unknown command '%s' (try --help)", argv[1]);
	return VG__EXIT_USAGE;
}
