/* Internal to varg-trace: the commands and what they share.
 *
 * Each command takes its own argv (argv[0] is the command name), parses it
 * with its own GOptionContext and returns the process exit status:
 * VG__EXIT_OK, VG__EXIT_FAIL when the work failed (missing or corrupt
 * input, a write error), VG__EXIT_USAGE for bad options. Errors are one
 * line on standard error, through vg_error(). */
#ifndef VG_TRACE_CMD_H
#define VG_TRACE_CMD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#define VG__EXIT_OK 0
#define VG__EXIT_FAIL 1
#define VG__EXIT_USAGE 2

int vg__trace_import(int argc, char **argv);
int vg__trace_info(int argc, char **argv);
int vg__trace_export(int argc, char **argv);
int vg__trace_model(int argc, char **argv);
int vg__trace_record(int argc, char **argv);
int vg__trace_replay_input(int argc, char **argv);
int vg__trace_play(int argc, char **argv);
int vg__trace_ratio(int argc, char **argv);

/* import --fbs: converts the FBS capture at path; returns the exit status. */
int vg__trace_import_fbs(const char *path, const char *out, int tile, int level, bool quiet);

/* Parses argv with ctx (which it frees). On a bad option prints one line
 * naming it and returns false. --help prints the help and exits. */
bool vg__trace_parse_options(GOptionContext *ctx, int *argc, char ***argv);

/* Prints "the message (try --help)" for a usage error; returns
 * VG__EXIT_USAGE. */
int vg__trace_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For commands that run until they are told to stop: after
 * vg__trace_catch_stop(), SIGINT and SIGTERM set vg__trace_stopped()
 * (without SA_RESTART, so a blocking poll() returns at once). */
void vg__trace_catch_stop(void);
bool vg__trace_stopped(void);

/* Sleeps until vg_time_ns() reaches t_ns, or until a stop signal. */
void vg__trace_sleep_until(uint64_t t_ns);

#endif
