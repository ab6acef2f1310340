// SPDX-License-Identifier: MIT
/*
 * A slot runs runs one after another on a simulated machine of its own:
 * for each, rank 0, the attacker, the other ranks (this program again),
 * then the oracle. A run fails when a rank dies by a signal or a
 * sanitizer, hangs (a backtrace is taken with gdb), leaks fds, returns
 * wrong sums after its init succeeded, or does not end as the plan (or
 * the member, judging what it changed) says it must; or when the harness
 * fails, the proxy's copies of the messages having drifted from libtern's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

struct fz_slot {
	const struct fz_options *opt;
	int index, log, hold_in;
	char log_path[PATH_MAX];
	pid_t hold;
};

/* @path with @argv; fds 9 and 10 as given, output to @log. */
static pid_t fz_spawn(const char *path, char *const argv[], int log, int fd9,
		      int fd10, int in)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Out of the way of the dup2s below first. */
	fd9 = fd9 >= 0 ? fcntl(fd9, F_DUPFD_CLOEXEC, 20) : -1;
	fd10 = fd10 >= 0 ? fcntl(fd10, F_DUPFD_CLOEXEC, 20) : -1;
	dup2(in >= 0 ? in : open("/dev/null", O_RDONLY | O_CLOEXEC), 0);
	dup2(log, 1);
	dup2(log, 2);
	if (fd9 >= 0)
		dup2(fd9, 9);
	if (fd10 >= 0)
		dup2(fd10, 10);
	execv(path, argv);
	_exit(127);
}

/*
 * This program again as @argv, with a pipe on fd 9: the line it writes
 * there in @line ("" if none came within 30 s).
 */
static pid_t fz_start_child(struct fz_slot *s, char *const argv[], int fd10,
			    int in, char *line, size_t len)
{
	int ready[2];
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -1;
	/* @line may be in @argv: the child has its own copy by now */
	pid = fz_spawn("/proc/self/exe", argv, s->log, ready[1], fd10, in);
	close(ready[1]);
	line[0] = 0;
	if (pid < 0 || !fz_read_line(ready[0], line, len, fz_now_ms() + 30000))
		line[0] = 0;
	close(ready[0]);
	return pid;
}

/* Waits for @pid until @deadline: whether it ended, its @status. */
static bool fz_wait(pid_t pid, int *status, int64_t deadline)
{
	pid_t got;

	while ((got = waitpid(pid, status, WNOHANG)) == 0 &&
	       fz_now_ms() < deadline)
		fz_sleep_ms(2);
	return got == pid;
}

static void fz_kill(pid_t pid)
{
	int status;

	if (pid > 0 && !kill(pid, SIGKILL))
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

/* Appends gdb's backtraces of @pid's threads to the log. */
static void fz_backtrace(struct fz_slot *s, pid_t pid)
{
	char id[16];
	char *const argv[] = { "gdb", "-p", id, "-batch", "-nx", "-ex",
			       "thread apply all bt", NULL };
	pid_t gdb;
	int status;

	if (access("/usr/bin/gdb", X_OK))
		return;
	snprintf(id, sizeof(id), "%d", (int)pid);
	dprintf(s->log, "---- gdb: backtraces of %d ----\n", (int)pid);
	gdb = fz_spawn("/usr/bin/gdb", argv, s->log, -1, -1, -1);
	if (gdb > 0 && !fz_wait(gdb, &status, fz_now_ms() + 30000))
		fz_kill(gdb);
}

/* Keeps the run's log, and shows its first lines. */
static void fz_save_log(struct fz_slot *s, uint64_t run)
{
	char saved[PATH_MAX], line[1024];
	FILE *in = fopen(s->log_path, "re"), *out;
	int lines = 0;

	snprintf(saved, sizeof(saved), "%s/fuzz-bootstrap-run-%" PRIu64 ".log",
		 s->opt->logdir, run);
	out = fopen(saved, "we");
	while (in && fgets(line, sizeof(line), in)) {
		if (out)
			fputs(line, out);
		if (lines++ < 80)
			printf("    | %s", line);
	}
	if (lines > 80)
		printf("    | ... %d lines more\n", lines - 80);
	printf("    log: %s\n", saved);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

/* The hold process keeps the slot's simulated machine up. */
static bool fz_slot_start(struct fz_slot *s)
{
	char *const argv[] = { "fuzz_bootstrap", "--hold", NULL };
	char machine[64], line[16];
	int in[2];

	snprintf(machine, sizeof(machine), "fuzzboot-%d-%d", (int)getppid(),
		 s->index);
	setenv("TERN_SIM_MACHINE", machine, 1);
	snprintf(s->log_path, sizeof(s->log_path), "%s/fuzz-bootstrap-%d-%d.log",
		 s->opt->logdir, (int)getppid(), s->index);
	s->log = open(s->log_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC |
		      O_APPEND, 0600);
	if (s->log < 0 || pipe2(in, O_CLOEXEC))
		return false;
	s->hold = fz_start_child(s, argv, -1, in[0], line, sizeof(line));
	close(in[0]);
	s->hold_in = in[1];
	if (!line[0]) {
		printf("fuzz/bootstrap: slot %d: the simulated machine %s did not start\n",
		       s->index, machine);
		fz_save_log(s, UINT64_MAX);
	}
	return line[0];
}

static void fz_slot_stop(struct fz_slot *s)
{
	int status;

	if (s->hold_in >= 0)
		close(s->hold_in);	/* the hold process's stdin ends */
	if (s->hold > 0)
		fz_wait(s->hold, &status, INT64_MAX);
	if (s->log >= 0)
		close(s->log);
	unlink(s->log_path);
}

/* What one run started, and what became of it. */
struct fz_run {
	struct fz_plan plan;
	pid_t rank[FZ_MAX_RANKS], attacker;
	int status[FZ_MAX_RANKS];
	bool hung[FZ_MAX_RANKS];
	int rep;			/* the proxy's reports */
	char why[128];			/* what the harness could not do */
};

/*
 * Rank 0 first, for the id; then the attacker (the proxy gives rank k an
 * id that names it); then the other ranks.
 */
static bool fz_start(struct fz_slot *s, struct fz_run *x)
{
	const struct fz_plan *p = &x->plan;
	char idhex[2 * TERN_UNIQUE_ID_BYTES + 2], khex[sizeof(idhex)];
	char nr[16], rk[FZ_MAX_RANKS][16], seed[24], run[24], tmo[16];
	char *const argv0[] = { "fuzz_bootstrap", "--rank", "-", "0", nr, NULL };
	char *const argva[] = { "fuzz_bootstrap", p->attack == FZ_OUTSIDE ?
				"--outside" : "--proxy", khex, seed, run, tmo,
				NULL };
	int rep[2] = { -1, -1 };
	tern_unique_id_t id;
	struct coll_id cid;

	snprintf(nr, sizeof(nr), "%d", p->nranks);
	snprintf(seed, sizeof(seed), "%" PRIu64, p->seed);
	snprintf(run, sizeof(run), "%" PRIu64, p->run);
	snprintf(tmo, sizeof(tmo), "%d", s->opt->timeout_ms);
	x->rank[0] = fz_start_child(s, argv0, -1, -1, idhex, sizeof(idhex));
	if (!fz_unhex(idhex, id.internal, sizeof(id.internal))) {
		snprintf(x->why, sizeof(x->why), "rank 0 gave no id");
		return false;
	}
	/* A stranger has the id without its secret. */
	memcpy(&cid, id.internal, sizeof(cid));
	memset(cid.secret, 0, sizeof(cid.secret));
	memcpy(id.internal, &cid, sizeof(cid));
	fz_hex(id.internal, sizeof(id.internal), khex);
	if (p->attack == FZ_MEMBER) {
		strcpy(khex, idhex);
		if (pipe2(rep, O_CLOEXEC | O_NONBLOCK))
			return false;
	}
	/* ready: the outsider's first connections are in; the proxy's id */
	x->attacker = fz_start_child(s, argva, rep[1], -1, khex, sizeof(khex));
	if (rep[1] >= 0)
		close(rep[1]);
	x->rep = rep[0];
	if (!khex[0]) {
		snprintf(x->why, sizeof(x->why), "the attacker is not ready");
		return false;
	}
	for (int r = 1; r < p->nranks; r++) {
		char *const argv[] = { "fuzz_bootstrap", "--rank",
				       p->attack == FZ_MEMBER && r == p->k ?
				       khex : idhex, rk[r], nr, NULL };

		snprintf(rk[r], sizeof(rk[r]), "%d", r);
		x->rank[r] = fz_spawn("/proc/self/exe", argv, s->log, -1, -1,
				      -1);
		if (x->rank[r] < 0)
			return false;
	}
	return true;
}

/* Waits for every rank by its timeouts and a margin; the rest hang. */
static void fz_reap(struct fz_slot *s, struct fz_run *x, int64_t start)
{
	const int64_t limit = fz_now_ms() + x->plan.timeout_ms +
			      2 * FZ_JOB_MS + FZ_MARGIN_MS;
	int st = 0;

	for (int r = 0; r < x->plan.nranks; r++) {
		if (fz_wait(x->rank[r], &x->status[r], limit))
			continue;
		dprintf(s->log, "==== rank %d (pid %d) still running %d ms after it began: hung\n",
			r, (int)x->rank[r], (int)(fz_now_ms() - start));
		fz_backtrace(s, x->rank[r]);
		fz_kill(x->rank[r]);
		x->hung[r] = true;
	}
	/* The outsider says what it did, then goes; the proxy has gone. */
	if (fz_wait(x->attacker, &st, fz_now_ms() + 5)) {
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			snprintf(x->why, sizeof(x->why),
				 "the attacker itself failed (status 0x%x)", st);
	} else {
		kill(x->attacker, SIGTERM);
		if (!fz_wait(x->attacker, &st, fz_now_ms() + 500))
			fz_kill(x->attacker);
	}
	x->attacker = 0;
}

static bool fz_in(int code, int base)
{
	return code >= base && code <= base + COLL_STATUS_LAST;
}

/* A rank's exit, in words; counted in @res as what fails a run. */
static void fz_rank_verdict(int status, bool hung, struct fz_result *res,
			    char *buf, size_t len)
{
	const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	if (hung)
		res->hangs++, snprintf(buf, len, "HUNG");
	else if (WIFSIGNALED(status))
		res->crashes++, snprintf(buf, len, "killed by signal %d",
					 WTERMSIG(status));
	else if (code == 0)
		snprintf(buf, len, "ok");
	else if (fz_in(code, FZ_EXIT_REDUCE))
		snprintf(buf, len, "init ok, all-reduce %s",
			 tern_status_name(code - FZ_EXIT_REDUCE));
	else if (fz_in(code, FZ_EXIT_INIT))
		snprintf(buf, len, "init %s",
			 tern_status_name(code - FZ_EXIT_INIT));
	else if (code == FZ_EXIT_WRONG)
		res->wrong++, snprintf(buf, len, "init ok, all-reduce WRONG DATA");
	else if (code == FZ_EXIT_LEAK)
		res->leaks++, snprintf(buf, len, "FD LEAK (see its log)");
	else if (code == FZ_EXIT_SETUP)
		res->harness++, snprintf(buf, len, "could not set up");
	else
		res->crashes++, snprintf(buf, len, "exit status %d (a sanitizer's?)",
					 code);
}

/* The oracle: @res's counts, and what each rank did in @text. */
static void fz_judge(struct fz_run *x, struct fz_result *res,
		     const char *reports, char *text, size_t tlen)
{
	const struct fz_plan *p = &x->plan;
	const char *said = strstr(reports, "expect=");
	const enum fz_expect e = p->by_content && said ?
				 (enum fz_expect)atoi(said + 7) : p->expect;
	int nok = 0, ninit = 0;
	size_t n = 0;

	for (int r = 0; r < p->nranks; r++) {
		const int code = WIFEXITED(x->status[r]) && !x->hung[r] ?
				 WEXITSTATUS(x->status[r]) : -1;
		const bool init_ok = code == 0 || code == FZ_EXIT_WRONG ||
				     fz_in(code, FZ_EXIT_REDUCE);
		char what[96];

		fz_rank_verdict(x->status[r], x->hung[r], res, what,
				sizeof(what));
		nok += code == 0;
		ninit += init_ok;
		if ((e == E_SUCCESS && code != 0) ||
		    (e == E_FAIL_ALL && init_ok) ||
		    (e == E_FAIL_K && r == p->k && init_ok))
			res->unmet = 1;
		n += (size_t)snprintf(text + n, n < tlen ? tlen - n : 0,
				      "%srank %d: %s", r ? "; " : "", r, what);
	}
	snprintf(text + n, n < tlen ? tlen - n : 0, "; expected %s%s",
		 fz_expect_name(e), p->by_content && !said ?
		 " (it only relayed)" : "");
	res->outcome = nok == p->nranks ? OUT_ALL_OK :
		       ninit == 0 ? OUT_ALL_FAILED : OUT_MIXED;
	if (strstr(reports, "drift"))
		res->harness++;
}

/* One run: its processes, and the verdict on what they did. */
static void fz_slot_run(struct fz_slot *s, uint64_t run, struct fz_result *res)
{
	struct fz_run x = { .rep = -1 };
	char desc[256], text[512], reports[8192] = "";
	const int64_t start = fz_now_ms();
	const char *line;
	ssize_t got;

	fz_make_plan(s->opt->seed, run, s->opt->timeout_ms, &x.plan);
	fz_describe(&x.plan, desc, sizeof(desc));
	memset(res, 0, sizeof(*res));
	res->run = run;
	res->attack = (uint8_t)x.plan.attack;
	if (ftruncate(s->log, 0))
		(void)0;
	dprintf(s->log, "==== run %" PRIu64 ": %s\n", run, desc);
	snprintf(text, sizeof(text), "%d", x.plan.timeout_ms);
	setenv("TERN_COMM_INIT_TIMEOUT_MS", text, 1);
	if (fz_start(s, &x)) {
		fz_reap(s, &x, start);
	} else {
		for (int r = 0; r < FZ_MAX_RANKS; r++)
			fz_kill(x.rank[r]);
		fz_kill(x.attacker);
		if (!x.why[0])
			snprintf(x.why, sizeof(x.why), "%s", strerror(errno));
	}
	res->ms = (uint32_t)(fz_now_ms() - start);
	if (x.rep >= 0) {
		got = read(x.rep, reports, sizeof(reports) - 1);
		reports[got > 0 ? got : 0] = 0;
		close(x.rep);
	}
	res->applied = x.plan.attack == FZ_OUTSIDE ||
		       strstr(reports, "applied") != NULL;
	if (x.why[0])
		res->harness++, snprintf(text, sizeof(text), "the harness: %s",
					 x.why);
	else
		fz_judge(&x, res, reports, text, sizeof(text));
	res->failed = res->crashes || res->hangs || res->wrong || res->leaks ||
		      res->unmet || res->harness;
	if (!res->failed && !s->opt->verbose && s->opt->only < 0)
		return;
	printf("fuzz/bootstrap: %s run %" PRIu64 " (%u ms): %s: %s\n",
	       res->failed ? "FAIL" : "ok", run, res->ms, desc, text);
	line = strstr(reports, "applied");
	if (line)
		printf("    member: %.*s\n", (int)strcspn(line, "\n"), line);
	if (res->failed)
		printf("    replay: fuzz_bootstrap --seed %" PRIu64 " --run %" PRIu64 "%s\n",
		       s->opt->seed, run, x.plan.cover ? " --cover" : "");
	/* A replay shows what happened, whatever it was. */
	if (res->failed || s->opt->only >= 0)
		fz_save_log(s, run);
	fflush(stdout);
}

/* Slot @index's runs, each result written to @out, until @end. */
int fz_slot_main(const struct fz_options *opt, int index, int out,
		 int64_t end)
{
	struct fz_slot s = { .opt = opt, .index = index, .log = -1,
			     .hold_in = -1 };
	struct fz_result res = { .run = UINT64_MAX, .failed = 1, .harness = 1 };
	uint64_t run = opt->only >= 0 ? (uint64_t)opt->only : (uint64_t)index;
	bool up = fz_slot_start(&s);

	if (!up)
		fz_write(out, &res, sizeof(res));
	for (; up; run += (uint64_t)opt->jobs) {
		if ((opt->runs >= 0 && run >= (uint64_t)opt->runs) ||
		    (opt->only < 0 && fz_now_ms() >= end))
			break;
		fz_slot_run(&s, run, &res);
		fz_write(out, &res, sizeof(res));
		if (opt->only >= 0)
			break;
	}
	fz_slot_stop(&s);
	return !up;
}
