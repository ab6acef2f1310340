// SPDX-License-Identifier: MIT
/*
 * tern-inspect top: a live view of every device (utilisation, engines,
 * memory, link throughput, health) and every process using one, redrawn
 * in place each interval on a terminal (q quits), or printed frame after
 * frame (--batch, or output not a terminal), or as JSON lines. Each frame
 * shows the interval that ended when it was drawn; the first text frame
 * comes at once, without rates.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
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
		"fabric link throughput, health; under a chip of cores, each\n"
		"engine type's utilisation) and every process using one\n"
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
	INSPECT_SHARED_LONG_OPTIONS,
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
		case 'h':
			top_usage(stdout);
			return -1;
		default:
			if (inspect_shared_option(opt, opts))
				break;
			return inspect_option_error("top", "top", opt, argv);
		}
	}
	if (optind < argc)
		return inspect_extra_argument("top", "top", argv[optind]);
	return 0;
}

/*
 * ---- the terminal: keys without Enter and the alternate screen, given
 * back however top ends or stops (q, a signal, exit, Ctrl-Z) and taken
 * again when it continues ----
 */

static struct termios top_saved_termios;
static volatile sig_atomic_t top_terminal_wanted;	/* until top ends */
static volatile sig_atomic_t top_terminal_ours;	/* raw + alternate now */
static volatile sig_atomic_t top_signal;
static volatile sig_atomic_t top_redraw;	/* continued: draw at once */

#define TOP_ENTER "\033[?1049h\033[?25l"	/* alternate screen, no cursor */
#define TOP_LEAVE "\033[?25h\033[?1049l"

/* The user's modes and main screen back. Async-signal-safe. */
static void top_give_back(void)
{
	if (!top_terminal_ours)
		return;
	top_terminal_ours = 0;
	/* A terminal that is gone needs nothing more. */
	(void)!write(STDOUT_FILENO, TOP_LEAVE, sizeof(TOP_LEAVE) - 1);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &top_saved_termios);
}

/* Keys without Enter or echo, and the alternate screen. Async-signal-safe. */
static void top_take(void)
{
	struct termios raw = top_saved_termios;

	if (!top_terminal_wanted || top_terminal_ours)
		return;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
	if (write(STDOUT_FILENO, TOP_ENTER, sizeof(TOP_ENTER) - 1) < 0)
		return;
	top_terminal_ours = 1;
}

/* For good: top is ending (also from atexit). */
static void top_leave_terminal(void)
{
	top_terminal_wanted = 0;
	top_give_back();
}

static void top_on_signal(int signo)
{
	top_leave_terminal();
	top_signal = signo;
}

static void top_on_stop(int signo);

static void top_catch_stop(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	sigemptyset(&action.sa_mask);
	action.sa_handler = top_on_stop;
	sigaction(SIGTSTP, &action, NULL);
}

/*
 * Ctrl-Z: give the terminal back, stop as the default action would (the
 * signal, pending while this handler blocks it, is delivered on
 * unblocking), and once continued take the terminal again.
 */
static void top_on_stop(int signo)
{
	int saved_errno = errno;
	sigset_t set;

	top_give_back();
	signal(signo, SIG_DFL);
	raise(signo);
	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	/* Continued (or never stopped: an orphaned process group). */
	top_catch_stop();
	top_take();
	top_redraw = 1;
	errno = saved_errno;
}

/* Continued after SIGSTOP, which cannot be caught: modes may have changed. */
static void top_on_continue(int signo)
{
	int saved_errno = errno;

	(void)signo;
	top_terminal_ours = 0;
	top_take();
	top_redraw = 1;
	errno = saved_errno;
}

/*
 * SIGINT, SIGTERM, SIGQUIT and SIGHUP end top (exit status 128 + the
 * signal); none restarts the wait (no SA_RESTART), so it ends at once.
 */
static void top_catch_signals(bool terminal)
{
	static const int ending[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP };
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	sigemptyset(&action.sa_mask);
	action.sa_handler = top_on_signal;
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		sigaction(ending[i], &action, NULL);
	if (!terminal)
		return;
	top_catch_stop();
	action.sa_handler = top_on_continue;
	sigaction(SIGCONT, &action, NULL);
}

/* Raw keys and the alternate screen until top ends (atexit too). */
static void top_take_terminal(void)
{
	if (tcgetattr(STDIN_FILENO, &top_saved_termios) != 0)
		return;
	top_terminal_wanted = 1;
	atexit(top_leave_terminal);
	top_take();
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
 * end (q, a signal). Returns early, true, to redraw after a continue.
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
		if (left <= 0 || top_redraw)
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

/* Draws the change from @old (NULL: none yet) to @now; false on no memory. */
static bool top_draw(const struct inspect_options *opts, bool interactive,
		     bool keys, long shown, const struct snapshot *old,
		     const struct snapshot *now)
{
	struct top_frame frame;
	int width, height;

	if (!top_frame_compute(old, now, &frame)) {
		fprintf(stderr, TOP_PROG ": out of memory\n");
		return false;
	}
	if (opts->json) {
		top_frame_print_json(&frame, stdout, opts->pretty);
	} else if (interactive) {
		top_terminal_size(&width, &height);
		top_frame_print_plain(&frame, stdout, width, height - 1,
				      keys ? "q quits" : NULL, true);
	} else {
		if (shown)
			putchar('\n');
		top_frame_print_plain(&frame, stdout, 0, 0, NULL, false);
	}
	fflush(stdout);
	top_frame_free(&frame);
	return true;
}

/*
 * Text frames start at once, the first without rates; a JSON frame always
 * covers an interval (its rates are numbers), so the first comes after
 * one delay.
 */
static int top_loop(const struct inspect_options *opts,
		    const struct top_settings *settings, bool interactive,
		    struct snapshot *old)
{
	struct snapshot_session session = { 0 };
	bool keys = interactive && isatty(STDIN_FILENO);
	bool first_now = !opts->json;
	struct snapshot now;
	long shown = 0;
	int ret = 0;

	if (interactive)
		top_take_terminal();
	if (first_now) {
		if (!top_draw(opts, interactive, keys, shown, NULL, old))
			ret = 1;
		shown++;
	}
	while (!ret && (!settings->iterations || shown < settings->iterations)) {
		if (!top_wait(settings->delay_ms, &keys))
			break;
		top_redraw = 0;
		if (snapshot_refresh(TOP_PROG, &session, old, &now)) {
			ret = 1;
			break;
		}
		if (!top_draw(opts, interactive, keys, shown, old, &now))
			ret = 1;
		snapshot_free(old);
		*old = now;
		shown++;
	}
	snapshot_session_end(&session);
	top_leave_terminal();
	if (!ret && top_signal)
		ret = 128 + top_signal;
	return ret;
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
	top_catch_signals(interactive);
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
