/* SPDX-License-Identifier: MIT */
/* iocurve run: run one campaign in-process, on local agents or agents that dial in. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "campaign.h"
#include "client.h"
#include "watch.h"
#include "control.h"
#include "frame.h"
#include "fsutil.h"
#include "dashboard.h"
#include "events.h"
#include "view_plain.h"
#include "certs.h"
#include "cmd.h"
#include "local.h"
#include "log.h"
#include "replay.h"
#include "results.h"
#include "runner.h"
#include "server.h"
#include "tls.h"

/* Everything one `iocurve run` owns. */
struct run_ctx {
	struct event_base *base;
	struct campaign *campaign;
	struct replay resumed; /* --resume: what the results directory holds */
	SSL_CTX *ssl;
	struct server *srv;
	struct results *res;
	struct runner *runner;
	struct local_agents *local;
	struct events *ev;
	struct dashboard *dash;
	char certs_tmp[64]; /* throw-away CA for local agents (local_certs_dir) */
	int status;
	bool finished;
};

static void run_done_cb(void *arg, int status)
{
	struct run_ctx *ctx = arg;

	ctx->status = status;
	ctx->finished = true;
	/*
	 * Let Abort/EndWorkload frames reach the agents before the loop ends; on the
	 * dashboard, leave the final screen up long enough to read.
	 */
	event_base_loopexit(ctx->base, &(struct timeval){ctx->dash ? 3 : 0, 100 * 1000});
}

static void run_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct run_ctx *ctx = arg;
	char why[64];

	snprintf(why, sizeof(why), "interrupted by %s", strsignal((int)sig));
	if (ctx->runner != NULL && !ctx->finished)
		runner_cancel(ctx->runner, why);
	else
		event_base_loopexit(ctx->base, NULL);
}

/* A local agent that dies takes the campaign with it: say which, and where its log is. */
static void run_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct run_ctx *ctx = arg;
	char msg[512];

	if (ctx->local != NULL && local_reap(ctx->local, msg, sizeof(msg)) && ctx->runner != NULL &&
	    !ctx->finished)
		runner_cancel(ctx->runner, msg);
}

static void run_dash_cancel(void *arg)
{
	struct run_ctx *ctx = arg;

	if (ctx->runner != NULL && !ctx->finished)
		runner_cancel(ctx->runner, "cancelled from the dashboard");
}

static const struct dashboard_cbs run_dash_cbs = {
    .on_detach = NULL, /* embedded: the campaign lives in this process */
    .on_cancel = run_dash_cancel,
};

static void run_dash_event(void *arg, const struct event *e)
{
	dashboard_event(arg, e);
}

/*
 * Every local agent has read its certificate and joined: the private directory (with
 * the throw-away CA's key) is not needed any more, so a run killed later leaves none.
 */
static void run_certs_done(void *arg, const struct event *e)
{
	if (e->kind == EVENT_AGENT && e->agent.state == EVENT_AGENT_READY &&
	    e->agent.n == e->agent.of)
		local_certs_remove();
}

/* The dashboard on a terminal, plain lines otherwise, or the event stream as JSON with --json. */
static void run_view(struct run_ctx *ctx, int json)
{
	if (json) {
		events_subscribe(ctx->ev, view_json, stdout);
		return;
	}
	if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) &&
	    (ctx->dash = dashboard_new(ctx->base, &run_dash_cbs, ctx)) != NULL) {
		events_subscribe(ctx->ev, run_dash_event, ctx->dash);
		return;
	}
	events_subscribe(ctx->ev, view_plain, stdout);
}

/* A socket file left by a daemon that is gone must not stop a plain `iocurve run`. */
static bool run_daemon_answers(const char *sock)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	bool ok;
	int fd;

	if (strlen(sock) >= sizeof(sun.sun_path))
		return false;
	memcpy(sun.sun_path, sock, strlen(sock) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* "iocurve run demo.yaml --out r1", words quoted where a shell would need it: for meta.json. */
static char *run_command_line(const struct args *a)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fputs("iocurve", f);
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];

		if (w[0] != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                              "0123456789-_./=:,@%+") == strlen(w)) {
			fprintf(f, " %s", w);
			continue;
		}
		fputs(" '", f);
		for (; *w; w++)
			fputs(*w == '\'' ? "'\\''" : (char[2]){*w, 0}, f);
		fputc('\'', f);
	}
	fclose(f);
	return out;
}

/* What --detach prints: the campaign's id, for `iocurve watch ID` or `status ID`. */
static void run_detached(uint32_t id, const char *sock, bool queued, bool json)
{
	if (json) {
		json_t *o = json_pack("{s:s, s:i, s:s, s:b}", "event", "submitted", "id",
		                      (json_int_t)id, "coordinator", sock, "queued", queued);
		char *line = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;

		if (line != NULL)
			printf("%s\n", line);
		free(line);
		json_decref(o);
		return;
	}
	printf("%u\n", id);
	fprintf(stderr, "campaign %u submitted to %s%s; follow it with `iocurve watch %u`\n", id,
	        sock, queued ? ", queued behind the running campaign" : "", id);
}

/*
 * Hand the campaign to a daemon, then follow it as `iocurve watch` would, or with
 * detach return at once.
 */
static int run_submit(const char *sock, const char *path, bool no_queue, bool detach, bool json,
                      const char *command)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__Submit sub = IOCURVE__SUBMIT__INIT;
	struct campaign *c;
	struct error err;
	uint32_t id;
	int rc;

	/* Check locally first: errors point at the user's file and line. */
	if (campaign_load(path, &c, &err) < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 2;
	}
	sub.plan = c->text;
	sub.name = (char *)path;
	sub.no_wait = no_queue;
	sub.command = (char *)command;
	env.body_case = IOCURVE__ENVELOPE__BODY_SUBMIT;
	env.submit = &sub;
	rc = client_request(sock, &env, CONTROL_TIMEOUT_SECONDS, &reply, &err);
	campaign_free(c);
	if (rc < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 1;
	}
	if (reply->body_case != IOCURVE__ENVELOPE__BODY_SUBMITTED || reply->submitted->id == 0) {
		fprintf(stderr, "iocurve: %s\n",
		        reply->body_case == IOCURVE__ENVELOPE__BODY_SUBMITTED
		            ? reply->submitted->error
		            : "unexpected reply from the daemon");
		frame_free(reply);
		return 1;
	}
	id = reply->submitted->id;
	if (detach) {
		run_detached(id, sock, reply->submitted->queued, json);
		frame_free(reply);
		return 0;
	}
	/* --json: stdout carries only JSON lines; what a person reads goes to stderr. */
	fprintf(json ? stderr : stdout, "campaign %u submitted to %s%s\n", id, sock,
	        reply->submitted->queued ? ": queued behind the running campaign" : "");
	fflush(stdout);
	frame_free(reply);
	rc = watch_campaign(sock, id, json, &err);
	if (rc < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 1;
	}
	return rc;
}

/* Set up TLS and the listener: throw-away certificates for local agents. */
static int run_setup(struct run_ctx *ctx, const char *listen, const char *tls_dir,
                     struct error *err)
{
	const struct campaign *c = ctx->campaign;

	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		if (local_certs_dir(ctx->certs_tmp, sizeof(ctx->certs_tmp), err) < 0)
			return -1;
		if (certs_init(ctx->certs_tmp, err) < 0)
			return -1;
		tls_dir = ctx->certs_tmp;
		if (listen == NULL)
			listen = "127.0.0.1:0";
		if (c->target_path != NULL && fs_mkdir_p(c->target_path, 0755, err) < 0) {
			error_prefix(err, "target %s: ", c->target_path);
			return -1;
		}
	} else if (listen == NULL || tls_dir == NULL) {
		error_set(err,
		          "%s: agents: select needs --coordinator-listen HOST:PORT and --tls DIR "
		          "(agents started by hand dial that address)",
		          c->path);
		return -1;
	}
	ctx->ssl = tls_ctx_new(tls_dir, CERTS_COORDINATOR_NAME, true, err);
	if (ctx->ssl == NULL)
		return -1;
	ctx->srv = server_new(ctx->base, ctx->ssl, listen, err);
	if (ctx->srv != NULL && c->agents_mode != CAMPAIGN_AGENTS_LOCAL) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/revoked", tls_dir);
		return server_load_revoked(ctx->srv, path, err) < 0 ? -1 : 0;
	}
	return ctx->srv == NULL ? -1 : 0;
}

/* --resume DIR: the plan and the steps finished, from the results directory. */
static int run_load_resumed(struct run_ctx *ctx, const char *dir, FILE *human, struct error *err)
{
	size_t steps = 0;

	if (replay_load(dir, &ctx->resumed, err) < 0) {
		replay_free(&ctx->resumed);
		return -1;
	}
	if (ctx->resumed.warning[0] != '\0')
		fprintf(stderr, "iocurve: warning: %s\n", ctx->resumed.warning);
	ctx->campaign = ctx->resumed.campaign;
	for (size_t i = 0; i < ctx->campaign->nworkloads; i++)
		steps += ctx->resumed.npts[i];
	fprintf(human, "resuming %s: %zu step(s) on disk; what follows them is dropped\n", dir,
	        steps);
	return 0;
}

static int run_exec(const struct args *a)
{
	const char *out = args_get(a, "out"), *listen = args_get(a, "coordinator-listen");
	const char *tls_dir = args_get(a, "tls"), *coordinator = args_get(a, "coordinator");
	const char *resume = args_get(a, "resume");
	bool verbose = args_has(a, "verbose"), json = args_has(a, "json");
	FILE *human = json ? stderr : stdout; /* --json: only JSON lines on stdout */
	struct run_ctx ctx = {.status = 1};
	struct event *sigs[4] = {NULL, NULL, NULL, NULL};
	struct error err;
	char defsock[256];
	struct stat st;

	log_init("iocurve", verbose ? LOG_LEVEL_INFO : LOG_LEVEL_WARN);
	/* A daemon is the default home of campaigns when its socket is there. */
	if (coordinator == NULL && listen == NULL && resume == NULL &&
	    stat(control_default_path(defsock, sizeof(defsock)), &st) == 0 &&
	    S_ISSOCK(st.st_mode) && run_daemon_answers(defsock))
		coordinator = defsock;
	if ((resume != NULL) == (a->noperands == 1)) {
		fprintf(stderr, "iocurve run: give a campaign FILE.yaml or --resume DIR\n");
		return 2;
	}
	if (coordinator != NULL && resume == NULL) {
		char *command = run_command_line(a);
		int rc = run_submit(coordinator, a->operands[0], args_has(a, "no-queue"),
		                    args_has(a, "detach"), json, command);

		free(command);
		return rc;
	}
	if (args_has(a, "detach")) {
		fprintf(stderr, "iocurve run: --detach needs a daemon to hand the campaign to "
		                "(--coordinator SOCKET, $IOCURVE_COORDINATOR, or `iocurve serve` "
		                "on its usual socket)\n");
		return 2;
	}
	if (resume != NULL ? run_load_resumed(&ctx, resume, human, &err) < 0
	                   : campaign_load(a->operands[0], &ctx.campaign, &err) < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	ctx.base = event_base_new();
	if (run_setup(&ctx, listen, tls_dir, &err) < 0)
		goto fail;
	ctx.res = resume == NULL ? results_open(out, ctx.campaign, &err)
	                         : results_resume(resume, ctx.campaign,
	                                          (const struct step_point *const *)ctx.resumed.pts,
	                                          ctx.resumed.npts, ctx.resumed.keep, &err);
	if (ctx.res == NULL)
		goto fail;
	fprintf(human, "campaign %s: %zu workload(s), results in %s\n", ctx.campaign->name,
	        ctx.campaign->nworkloads, results_dir(ctx.res));
	if (ctx.campaign->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		ctx.local =
		    /* A simulated target touches no file: allow only the private certs dir. */
		    local_spawn(ctx.certs_tmp, server_address(ctx.srv),
		                ctx.campaign->target_path ? ctx.campaign->target_path
		                                          : ctx.certs_tmp,
		                results_dir(ctx.res), ctx.campaign->agents_count, &err);
		if (ctx.local == NULL)
			goto fail;
	} else {
		fprintf(human, "waiting for %u agent(s) to dial %s\n", ctx.campaign->agents_count,
		        server_address(ctx.srv));
	}
	fflush(human);
	ctx.ev = events_new();
	run_view(&ctx, json);
	if (ctx.local != NULL)
		events_subscribe(ctx.ev, run_certs_done, NULL);
	ctx.runner =
	    runner_new(ctx.base, ctx.srv, ctx.campaign, ctx.res, ctx.ev, run_done_cb, &ctx);
	{
		char *command = run_command_line(a);

		runner_set_command(ctx.runner, command);
		free(command);
	}
	if (resume != NULL)
		runner_resume_from(ctx.runner, (const struct step_point *const *)ctx.resumed.pts,
		                   ctx.resumed.npts);
	events_emit_campaign(ctx.ev, ctx.campaign, 0, results_dir(ctx.res));
	sigs[0] = evsignal_new(ctx.base, SIGINT, run_signal_cb, &ctx);
	sigs[1] = evsignal_new(ctx.base, SIGTERM, run_signal_cb, &ctx);
	sigs[2] = evsignal_new(ctx.base, SIGCHLD, run_sigchld_cb, &ctx);
	sigs[3] = evsignal_new(ctx.base, SIGHUP, run_signal_cb, &ctx);
	for (int i = 0; i < 4; i++)
		event_add(sigs[i], NULL);
	runner_start(ctx.runner);
	event_base_dispatch(ctx.base);
	/*
	 * The terminal is ours again before the tables and any failure are printed
	 * (plain lines printed the tables with the done event).
	 */
	if (ctx.dash != NULL) {
		dashboard_free(ctx.dash);
		ctx.dash = NULL;
		runner_report(ctx.runner, stdout);
	}
	if (ctx.status != 0 && runner_error(ctx.runner)[0] != '\0')
		fprintf(stderr, "iocurve: campaign %s failed: %s\n", ctx.campaign->name,
		        runner_error(ctx.runner));
	goto out;
fail:
	fprintf(stderr, "iocurve: %s\n", err.msg);
out:
	fflush(stdout);
	local_stop(ctx.local);
	ctx.local = NULL;
	runner_free(ctx.runner);
	server_free(ctx.srv);
	/* One more turn of the loop so close_notify reaches the agents. */
	if (ctx.base != NULL)
		event_base_loop(ctx.base, EVLOOP_NONBLOCK);
	for (int i = 0; i < 4; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	results_close(ctx.res);
	events_free(ctx.ev);
	SSL_CTX_free(ctx.ssl);
	if (ctx.base != NULL)
		event_base_free(ctx.base);
	local_certs_remove();
	if (ctx.resumed.campaign != NULL)
		replay_free(&ctx.resumed); /* ctx.campaign is its campaign */
	else
		campaign_free(ctx.campaign);
	return ctx.status;
}

static const struct args_option run_options[] = {
    {"out", 'o', "DIR", "the results directory (default: a new one under iocurve-results/)", false},
    {"coordinator-listen", 'l', "HOST:PORT", "the address agents dial (agents: select)", false},
    {"tls", 't', "DIR", "ca.crt and coordinator.{crt,key} for agents that dial in", false,
     "IOCURVE_TLS"},
    {"verbose", 'v', NULL, "log what the coordinator does", false},
    {"json", 'j', NULL, "print the raw event stream, one JSON object a line", false},
    CLIENT_OPTION_COORDINATOR,
    {"no-queue", 'W', NULL, "with a daemon: fail rather than queue behind a campaign", false, NULL,
     "no-wait"},
    {"detach", 'd', NULL, "with a daemon: submit, print the campaign's id and return", false},
    {"resume", 'r', "DIR", "carry on the campaign of results DIR from its first unfinished step",
     false},
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
                    "reads goes to stderr.\n",
            .options = run_options,
            .min_operands = 0,
            .max_operands = 1,
        },
    .exec = run_exec,
};
