// SPDX-License-Identifier: MIT
/*
 * tern-inspect top: a live view of every device (utilisation, engines,
 * memory, link throughput, health) and every process using one, redrawn
 * in place each interval on a terminal (q quits), or printed frame after
 * frame (--batch, or output not a terminal), or as JSON lines. Each frame
 * shows the interval that ended when it was drawn: the first comes after
 * one delay.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "inspect.h"
#include "live.h"
#include "snapshot.h"
#include "top_frame.h"

#define TOP_PROG "tern-inspect top"

struct top_settings {
	int64_t delay_ms;
	long iterations;	/* 0: until q or a signal */
	bool batch;
};

static void top_usage(FILE *out)
{
	fprintf(out,
		"Usage: tern-inspect top [-d SECONDS] [-n N] [-b] [options]\n"
		"A live view of every device (utilisation, engines busy, memory,\n"
		"fabric link throughput, health) and every process using one\n"
		"(memory, utilisation, active jobs). On a terminal it redraws in\n"
		"place; q quits.\n"
		"\n"
		"Options:\n"
		"  -d, --delay SECONDS    time between frames, 0.1-3600 (default 1)\n"
		"  -n, --iterations N     stop after N frames\n"
		"  -b, --batch            print frames one after another, no escape\n"
		"                         codes and no keys (also when the output is\n"
		"                         not a terminal)\n");
	inspect_print_common_options(out);
	fprintf(out, "With --json, each frame is one JSON object on its own line.\n");
}

static const struct option top_options[] = {
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, 'j' },
	{ "pretty", no_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0 to run, -1 after --help, or the exit status of a bad line. */
static int top_parse(int argc, char **argv, struct inspect_options *opts,
		     struct top_settings *settings)
{
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+:d:n:bjph", top_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!live_parse_seconds(optarg, 0.1, 3600,
						&settings->delay_ms)) {
				fprintf(stderr,
					TOP_PROG ": -d '%s': expected seconds between frames, 0.1-3600 (e.g. 2 or 0.5)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (!cli_parse_long(optarg, 1, 1000000000,
					    &settings->iterations)) {
				fprintf(stderr,
					TOP_PROG ": -n '%s': expected a number of frames, 1-1000000000\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			settings->batch = true;
			break;
		case 'j':
			opts->json = true;
			break;
		case 'p':
			opts->pretty = true;
			break;
		case 'h':
			top_usage(stdout);
			return -1;
		case ':':
			fprintf(stderr, TOP_PROG ": %s needs a value\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr,
				TOP_PROG ": unknown option '%s' (see 'tern-inspect top --help')\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			TOP_PROG ": unexpected argument '%s' (see 'tern-inspect top --help')\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/* ---- the terminal: keys without Enter, restored however top ends ---- */

static struct termios top_saved_termios;
static bool top_termios_changed;
static volatile sig_atomic_t top_signal;

static void top_on_signal(int signo)
{
	top_signal = signo;
}

static void top_restore_terminal(void)
{
	if (top_termios_changed)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &top_saved_termios);
	top_termios_changed = false;
}

static void top_raw_terminal(void)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &top_saved_termios) != 0)
		return;
	raw = top_saved_termios;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0)
		top_termios_changed = true;
}

/* SIGINT and SIGTERM interrupt the wait (no SA_RESTART) and end top. */
static void top_catch_signals(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	action.sa_handler = top_on_signal;
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
}

static void top_terminal_size(int *width, int *height)
{
	struct winsize size;

	*width = 80;
	*height = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
		*width = size.ws_col;
		*height = size.ws_row > 0 ? size.ws_row : 24;
	}
}

/*
 * Waits @ms, or until q is typed when @keys; returns false when top should
 * end (q, a signal).
 */
static bool top_wait(int64_t ms, bool *keys)
{
	int64_t deadline = live_now_ms() + ms;
	char key;

	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int64_t left = deadline - live_now_ms();
		int ret;

		if (top_signal)
			return false;
		if (left <= 0)
			return true;
		ret = poll(&pfd, *keys ? 1 : 0, (int)left);
		if (ret < 0 && errno != EINTR)
			return true;
		if (ret <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		if (read(STDIN_FILENO, &key, 1) != 1) {
			*keys = false;	/* end of input: just wait */
			continue;
		}
		if (key == 'q' || key == 'Q')
			return false;
	}
}

static int top_loop(const struct inspect_options *opts,
		    const struct top_settings *settings, bool interactive,
		    struct snapshot *old)
{
	bool keys = interactive && isatty(STDIN_FILENO);
	struct snapshot now;
	struct top_frame frame;
	int width = 0, height = 0;

	if (keys)
		top_raw_terminal();
	for (long shown = 0; !settings->iterations || shown < settings->iterations;
	     shown++) {
		if (!top_wait(settings->delay_ms, &keys))
			break;
		if (snapshot_refresh(TOP_PROG, old, &now)) {
			top_restore_terminal();
			return 1;
		}
		if (!top_frame_compute(old, &now, &frame)) {
			fprintf(stderr, TOP_PROG ": out of memory\n");
			snapshot_free(&now);
			top_restore_terminal();
			return 1;
		}
		if (opts->json) {
			top_frame_print_json(&frame, stdout, opts->pretty);
		} else if (interactive) {
			top_terminal_size(&width, &height);
			fputs("\033[H\033[2J", stdout);
			top_frame_print_plain(&frame, stdout, width, height - 1,
					      keys ? "q quits" : NULL);
		} else {
			if (shown)
				putchar('\n');
			top_frame_print_plain(&frame, stdout, 0, 0, NULL);
		}
		fflush(stdout);
		top_frame_free(&frame);
		snapshot_free(old);
		*old = now;
	}
	top_restore_terminal();
	return top_signal ? 128 + top_signal : 0;
}

static int top_run(int argc, char **argv, struct inspect_options *opts)
{
	struct top_settings settings = { .delay_ms = 1000 };
	struct snapshot snap;
	bool interactive;
	int ret;

	ret = top_parse(argc, argv, opts, &settings);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = snapshot_take(TOP_PROG, &snap);
	if (ret)
		return ret;
	interactive = !settings.batch && !opts->json && isatty(STDOUT_FILENO);
	top_catch_signals();
	ret = top_loop(opts, &settings, interactive, &snap);
	snapshot_free(&snap);
	return ret;
}

const struct inspect_command inspect_top_command = {
	.name = "top",
	.summary = "live per-device and per-process usage (q quits)",
	.usage = top_usage,
	.run = top_run,
};
