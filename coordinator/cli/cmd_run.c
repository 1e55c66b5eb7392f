/* SPDX-License-Identifier: MIT */
/*
 * iocurve run: one campaign, handed to a daemon (submit.c) or to a host of the same
 * core started in this process, on local agents or agents that dial in.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign.h"
#include "campsource.h"
#include "certs.h"
#include "client.h"
#include "cmd.h"
#include "conn.h"
#include "control.h"
#include "daemon.h"
#include "follow.h"
#include "kneegate.h"
#include "fsutil.h"
#include "host.h"
#include "local.h"
#include "log.h"
#include "replay.h"
#include "runner.h"
#include "saferead.h"
#include "submit.h"
#include "xalloc.h"

/*
 * What the CLI keeps of an embedded run: the campaign itself is hosted by the same
 * core `serve` runs (daemon/host.h), started in this process and submitted to.
 */
struct run_ctx {
	struct event_base *base;
	struct host *host;
	uint32_t id; /* the campaign's, in the host */
	struct local_agents *local;
	struct follow *follow; /* the view, from the campaign's start */
	FILE *human;           /* what a person reads: stdout, or stderr with --json */
	bool json;
	char results[4096];     /* the results directory, from the done event */
	struct certs_mem certs; /* throw-away CA's certificates for local agents, in memory */
	char tls[3][32];        /* the coordinator's, as /proc/self/fd/N */
	char name[128];
	char error[1024];
	int status;
	bool started, finished;
	bool device_writes;   /* --allow-device-writes: local agents may write a device */
	struct kneegate gate; /* --require-knee */
};

/* Cancel the campaign, unless it has ended: then only the loop is left to end. */
static void run_cancel(struct run_ctx *ctx, const char *why)
{
	struct error err;

	if (ctx->finished || ctx->id == 0 ||
	    daemon_cancel_campaign(host_daemon(ctx->host), ctx->id, why, &err) < 0)
		event_base_loopexit(ctx->base, NULL);
}

static void run_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	char why[64];

	snprintf(why, sizeof(why), "interrupted by %s", strsignal((int)sig));
	run_cancel(arg, why);
}

/* A local agent that dies takes the campaign with it: say which, and where its log is. */
static void run_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct run_ctx *ctx = arg;
	char msg[512];

	if (ctx->local != NULL && local_reap(ctx->local, msg, sizeof(msg)) && !ctx->finished)
		run_cancel(ctx, msg);
}

static void run_dash_cancel(void *arg)
{
	struct run_ctx *ctx = arg;

	if (!ctx->finished)
		run_cancel(ctx, "cancelled from the dashboard");
}

/* m on the dashboard: the mark goes to the campaign this process runs, no socket between. */
static void run_dash_mark(void *arg, const char *text)
{
	struct run_ctx *ctx = arg;
	char msg[512];

	if (ctx->id == 0 || ctx->finished)
		snprintf(msg, sizeof(msg), "mark not stamped: the campaign is not running");
	else
		daemon_mark_campaign(host_daemon(ctx->host), ctx->id, text, msg, sizeof(msg));
	follow_notice(ctx->follow, msg);
}

static const struct dashboard_cbs run_dash_cbs = {
    .on_detach = NULL, /* embedded: the campaign lives in this process */
    .on_cancel = run_dash_cancel,
    .on_mark = run_dash_mark,
};

/*
 * The results directory is open: say where, start the local agents (their logs go
 * there) or say where agents dial, then take the terminal for the dashboard.
 */
static int run_opened(void *arg, const struct campaign *c, const char *results, struct error *err)
{
	struct run_ctx *ctx = arg;

	snprintf(ctx->name, sizeof(ctx->name), "%s", c->name);
	if (c->multi_target)
		fprintf(
		    ctx->human,
		    "campaign %s: %zu workload(s), each a (test, target) pair over %zu targets, "
		    "results in %s\n",
		    c->name, c->nworkloads, c->ntargets, results);
	else
		fprintf(ctx->human, "campaign %s: %zu workload(s), results in %s\n", c->name,
		        c->nworkloads, results);
	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		/* Every target's path; a simulated target touches no file: allow only a sink. */
		const char **allow = xcalloc(c->ntargets + 1, sizeof(*allow));
		size_t nallow = 0;

		/* an export: the whole of it, whose directories beneath the agents may make */
		for (size_t i = 0; i < c->ntargets; i++)
			if (c->targets[i].nfs.enabled)
				allow[nallow++] = c->targets[i].nfs.export_url;
			else if (c->targets[i].path != NULL)
				allow[nallow++] = c->targets[i].path;
		if (nallow == 0)
			allow[nallow++] = "/dev/null";
		ctx->local =
		    local_spawn(&ctx->certs, host_address(ctx->host), allow, nallow, results,
		                c->agents_count, &c->local_caps, ctx->device_writes, err);
		free(allow);
		/* Each agent has its copies: nothing of the CA stays in this process. */
		certs_mem_free(&ctx->certs);
		if (ctx->local == NULL)
			return -1;
	} else {
		fprintf(ctx->human, "waiting for %u agent(s) to dial %s\n", c->agents_count,
		        host_address(ctx->host));
	}
	fflush(ctx->human);
	ctx->follow = follow_new(ctx->base, ctx->json, &run_dash_cbs, ctx);
	return 0;
}

/* The campaign's events, followed as a watcher follows them. */
static void run_event(void *arg, const struct event *e)
{
	struct run_ctx *ctx = arg;

	if (e->kind == EVENT_CAMPAIGN)
		ctx->started = true;
	if (e->kind == EVENT_DONE && e->done.results != NULL)
		snprintf(ctx->results, sizeof(ctx->results), "%s", e->done.results);
	if (ctx->follow != NULL)
		follow_event(ctx->follow, e);
	kneegate_event(&ctx->gate, e);
}

static void run_done(void *arg, int status, const char *why)
{
	struct run_ctx *ctx = arg;

	ctx->status = status;
	ctx->finished = true;
	snprintf(ctx->error, sizeof(ctx->error), "%s", why);
	/*
	 * Let Abort/EndWorkload frames reach the agents before the loop ends; on the
	 * dashboard, leave the final screen up long enough to read.
	 */
	event_base_loopexit(ctx->base,
	                    &(struct timeval){follow_dashboard(ctx->follow) ? 3 : 0, 100 * 1000});
}

/*
 * Where agents dial and with which certificates: throw-away ones on a loopback port
 * for local agents, else --coordinator-listen and --tls.
 */
static int run_agents_setup(struct run_ctx *ctx, const struct campaign *c, struct host_options *o,
                            struct error *err)
{
	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		/* In memory only: a kill at any moment leaves no key on disk. */
		if (local_certs_new(&ctx->certs, c->agents_count, err) < 0)
			return -1;
		snprintf(ctx->tls[0], sizeof(ctx->tls[0]), "/proc/self/fd/%d", ctx->certs.co_crt);
		snprintf(ctx->tls[1], sizeof(ctx->tls[1]), "/proc/self/fd/%d", ctx->certs.co_key);
		snprintf(ctx->tls[2], sizeof(ctx->tls[2]), "/proc/self/fd/%d", ctx->certs.ca_crt);
		o->tls_dir = NULL;
		o->tls_crt = ctx->tls[0];
		o->tls_key = ctx->tls[1];
		o->tls_ca = ctx->tls[2];
		if (o->listen == NULL)
			o->listen = "127.0.0.1:0";
		for (size_t i = 0; i < c->ntargets; i++) {
			const char *tp = c->targets[i].path;
			struct stat st;

			/* a block device is the target itself, an export the server's: nothing to
			 * make */
			if (c->targets[i].nfs.enabled ||
			    (tp != NULL && stat(tp, &st) == 0 && S_ISBLK(st.st_mode)))
				continue;
			if (tp != NULL && fs_mkdir_p(tp, 0755, err) < 0) {
				error_prefix(err, "target %s: ", tp);
				return -1;
			}
		}
	} else if (o->listen == NULL || o->tls_dir == NULL) {
		error_set(err,
		          "%s: agents: select needs --coordinator-listen HOST:PORT and --tls DIR "
		          "(agents started by hand dial that address)",
		          c->path);
		return -1;
	}
	return 0;
}

/* --resume DIR: the plan and the steps finished, from the results directory. */
static struct replay *run_load_resumed(const char *dir, FILE *human, struct error *err)
{
	struct replay *rp = xcalloc(1, sizeof(*rp));
	size_t steps = 0;

	if (replay_load_resume(dir, rp, err) < 0) {
		replay_free(rp);
		free(rp);
		return NULL;
	}
	if (rp->warning[0] != '\0')
		fprintf(stderr, "iocurve: warning: %s\n", rp->warning);
	for (size_t i = 0; i < rp->campaign->nworkloads; i++)
		steps += rp->npts[i];
	fprintf(human, "resuming %s: %zu step(s) on disk; what follows them is dropped\n", dir,
	        steps);
	return rp;
}

/* The campaign file with its --set arguments: what runs, and plan.yaml, is the result. */
static int run_load(const struct args *a, struct campaign **c, struct error *err)
{
	struct campsource src = {0};

	src.sets = args_get_all(a, "set", &src.nsets);
	return campaign_load_source(a->operands[0], &src, c, err);
}

/* In this process: a host of its own, the campaign submitted to it, its events followed. */
/* summary.md is a few KB a workload: a larger one is not this run's */
#define RUN_WIDE_MAX (16u << 20)

/* --wide: every column, the tables of summary.md, after the run's narrow end. */
static void run_print_wide(FILE *out, const char *dir)
{
	struct error err;
	char *text;
	size_t len;

	text = saferead_all(AT_FDCWD, dir, "summary.md", RUN_WIDE_MAX, 0, &len, &err);
	if (text == NULL) {
		fprintf(stderr, "iocurve: --wide: %s\n", err.msg);
		return;
	}
	fputc('\n', out);
	fwrite(text, 1, len, out);
	free(text);
}

static int run_embedded(const struct args *a, bool json, double require)
{
	const char *resume = args_get(a, "resume");
	struct run_ctx ctx = {.status = 1,
	                      .json = json,
	                      .human = json ? stderr : stdout,
	                      .device_writes = args_has(a, "allow-device-writes"),
	                      .gate = {.rate = require}};
	struct host_options o = {.listen = args_get(a, "coordinator-listen"),
	                         .tls_dir = args_get(a, "tls")};
	struct daemon_client client = {run_opened, run_event, run_done, &ctx};
	struct daemon_submission sub = {.results = resume != NULL ? resume : args_get(a, "out"),
	                                .client = &client};
	const struct campaign *c;
	struct event *sigs[4] = {NULL, NULL, NULL, NULL};
	const int signos[4] = {SIGINT, SIGTERM, SIGCHLD, SIGHUP};
	struct error err;
	char *command;

	if (resume != NULL ? (sub.resumed = run_load_resumed(resume, ctx.human, &err)) == NULL
	                   : run_load(a, &sub.campaign, &err) < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 2;
	}
	c = sub.resumed != NULL ? sub.resumed->campaign : sub.campaign;
	signal(SIGPIPE, SIG_IGN);
	ctx.base = conn_base_new();
	if (run_agents_setup(&ctx, c, &o, &err) < 0 ||
	    (ctx.host = host_new(ctx.base, &o, &err)) == NULL) {
		if (sub.resumed != NULL)
			replay_free(sub.resumed);
		free(sub.resumed);
		campaign_free(sub.campaign);
		fprintf(stderr, "iocurve: %s\n", err.msg);
		goto out;
	}
	for (int i = 0; i < 4; i++) {
		sigs[i] = evsignal_new(ctx.base, signos[i],
		                       signos[i] == SIGCHLD ? run_sigchld_cb : run_signal_cb, &ctx);
		event_add(sigs[i], NULL);
	}
	command = args_command_line(a);
	sub.command = command;
	ctx.id = daemon_submit_campaign(host_daemon(ctx.host), &sub, &err);
	free(command);
	if (ctx.id == 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		goto out;
	}
	event_base_dispatch(ctx.base);
	/* The terminal is ours again before the tables and any failure are printed. */
	follow_free(ctx.follow);
	ctx.follow = NULL;
	if (args_has(a, "wide") && ctx.results[0] != '\0')
		run_print_wide(ctx.human, ctx.results);
	if (ctx.status == RUNNER_DEGRADED)
		fprintf(stderr, "iocurve: campaign %s complete, %s (exit status %d%s)\n", ctx.name,
		        ctx.error, args_has(a, "accept-degraded") ? 0 : RUNNER_DEGRADED,
		        args_has(a, "accept-degraded") ? ": --accept-degraded"
		                                       : "; --accept-degraded: 0");
	else if (ctx.status != 0 && ctx.error[0] != '\0') {
		if (ctx.started)
			fprintf(stderr, "iocurve: campaign %s failed: %s\n", ctx.name, ctx.error);
		else
			fprintf(stderr, "iocurve: %s\n", ctx.error);
	}
out:
	fflush(stdout);
	local_stop(ctx.local);
	ctx.local = NULL;
	host_free(ctx.host);
	for (int i = 0; i < 4; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	event_base_free(ctx.base);
	certs_mem_free(&ctx.certs);
	ctx.status = kneegate_status(&ctx.gate, ctx.status);
	return ctx.status == RUNNER_DEGRADED && args_has(a, "accept-degraded") ? 0 : ctx.status;
}

static int run_exec(const struct args *a)
{
	const char *coordinator = args_get(a, "coordinator"), *resume = args_get(a, "resume");
	bool verbose = args_has(a, "verbose"), json = args_has(a, "json");
	const char *req = args_get(a, "require-knee");
	double require = 0;
	char defsock[256];
	struct stat st;

	log_init("iocurve", verbose ? LOG_LEVEL_INFO : LOG_LEVEL_WARN);
	/* A daemon is the default home of campaigns when its socket is there. */
	if (coordinator == NULL && args_get(a, "coordinator-listen") == NULL && resume == NULL &&
	    stat(control_default_path(defsock, sizeof(defsock)), &st) == 0 &&
	    S_ISSOCK(st.st_mode) && submit_daemon_answers(defsock))
		coordinator = defsock;
	if (req != NULL) {
		char *end;

		require = strtod(req, &end);
		if (end == req || *end != '\0' || !(require > 0) || require > 1e15) {
			fprintf(
			    stderr,
			    "iocurve run: --require-knee %s: expected a rate above 0 in each "
			    "workload's unit (ops/s, or MiB/s for sequential ones), e.g. 5000\n",
			    req);
			return 2;
		}
		if (args_has(a, "detach")) {
			fprintf(stderr, "iocurve run: --require-knee needs the campaign's end: it "
			                "cannot be given with --detach\n");
			return 2;
		}
	}
	if ((resume != NULL) == (a->noperands == 1)) {
		fprintf(stderr, "iocurve run: give a campaign FILE.yaml or --resume DIR\n");
		return 2;
	}
	if (resume != NULL && args_has(a, "set")) {
		fprintf(stderr,
		        "iocurve run: --set applies to a campaign FILE; --resume carries on "
		        "the campaign in DIR/plan.yaml as it was\n");
		return 2;
	}
	if (coordinator != NULL && resume == NULL) {
		char *command = args_command_line(a);
		struct campsource src = {0};
		struct kneegate gate = {.rate = require};
		int rc;

		src.sets = args_get_all(a, "set", &src.nsets);
		rc = submit_and_follow(coordinator, a->operands[0], &src, args_has(a, "no-queue"),
		                       args_has(a, "detach"), json, command, &gate);

		free(command);
		rc = kneegate_status(&gate, rc);
		return rc == RUNNER_DEGRADED && args_has(a, "accept-degraded") ? 0 : rc;
	}
	if (args_has(a, "detach")) {
		fprintf(stderr, "iocurve run: --detach needs a daemon to hand the campaign to "
		                "(--coordinator SOCKET, $IOCURVE_COORDINATOR, or `iocurve serve` "
		                "on its usual socket)\n");
		return 2;
	}
	return run_embedded(a, json, require);
}

static const struct args_option run_options[] = {
    {"out", 'o', "DIR", "the results directory (default: a new one under iocurve-results/)", false},
    {"coordinator-listen", 'l', "HOST:PORT", "the address agents dial (agents: select)", false},
    {"tls", 't', "DIR", "ca.crt and coordinator.{crt,key} for agents that dial in", false,
     "IOCURVE_TLS"},
    {"verbose", 'v', NULL, "log what the coordinator does", false},
    {"json", 'j', NULL, "print the raw event stream, one JSON object a line", false},
    {"wide", 'w', NULL, "after the run, every column: the tables of summary.md", false},
    CLIENT_OPTION_COORDINATOR,
    {"no-queue", 'W', NULL, "with a daemon: fail rather than queue behind a campaign", false, NULL,
     "no-wait"},
    {"detach", 'd', NULL, "with a daemon: submit, print the campaign's id and return", false},
    {"resume", 'r', "DIR", "carry on the campaign of results DIR from its first unfinished step",
     false},
    {"accept-degraded", 'A', NULL,
     "exit 0, not 3, when the campaign completed without some of its agents (lost on the way)",
     false},
    {"set", 'S', "KEY=VALUE",
     "override a campaign value by its dotted path (target.path=/mnt/x, "
     "workloads.NAME.queue_depth=8); repeatable",
     false},
    {"allow-device-writes", 'B', NULL,
     "local agents may write to a target that is a block device (its data is lost), as the "
     "agent's flag of that name",
     false},
    {"require-knee", 'K', "RATE",
     "exit 5 naming the workload when a knee is below RATE (its unit) or there is none", false},
    {NULL},
};

const struct cmd_entry cmd_run_entry = {
    .args =
        {
            .name = "run",
            .operands = "FILE.yaml | --resume DIR",
            .help = "run a campaign: local agents for agents: {local: N}, else agents that "
                    "dial in",
            .more = "In process: --out, --coordinator-listen and --tls (agents: select), or\n"
                    "through a daemon: --coordinator SOCKET [--no-queue] [--detach]; a daemon\n"
                    "listening on the usual control socket is used when neither is given.\n"
                    "--json prints only JSON lines on stdout (one event a line); what a person\n"
                    "reads goes to stderr.\n"
                    "Exit status: 0 complete, 1 failed or cancelled, 2 usage or campaign\n"
                    "error, 3 complete without some agents (degraded), 5 --require-knee\n"
                    "not met.\n",
            .options = run_options,
            .min_operands = 0,
            .max_operands = 1,
        },
    .exec = run_exec,
};
