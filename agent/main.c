/* SPDX-License-Identifier: MIT */
/* iocurve-agent: runs I/O for a coordinator on one client machine. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "agent.h"
#include "certs.h"
#include "clock.h"
#include "conn.h"
#include "frame.h"
#include "link.h"
#include "log.h"
#include "netaddr.h"
#include "plan.h"
#include "tls.h"
#include "units.h"
#include "xalloc.h"

/* Long options without a letter. */
#define AGENT_OPT_MAX_FILES 1001
#define AGENT_OPT_MAX_DEPTH 1002
#define AGENT_OPT_NFS_ROOT  1003

/*
 * The program: what the link and the plan both read, each one's options, the two
 * modules, and how the agent ends. main connects them: the link's callbacks go
 * to the plan, the plan sends through the link; neither knows the other.
 */
struct agent_main {
	struct agent a;
	struct link_opts link_opts;
	struct plan_opts plan_opts;
	struct link *link;
	struct plan *plan;
	int exit_status;
	int tls_fd[3]; /* --tls-fd: certificate, key, ca.crt as inherited descriptors; -1: none */
};

static void agent_usage(FILE *f)
{
	fprintf(f,
	        "usage: iocurve-agent --coordinator HOST:PORT --tls DIR [--name NAME]\n"
	        "                     (or --tls-fd CRT,KEY,CA instead of --tls DIR)\n"
	        "                     --allow PATH [--allow PATH...] [--label KEY=VALUE...]\n"
	        "                     [--allow-device-writes] [--allow-nfs-root]\n"
	        "                     [--max-frame SIZE] [--verbose]\n"
	        "                     [--heartbeat DURATION] [--heartbeat-misses N]\n"
	        "                     [--dead-man DURATION] [--max-workers N]\n"
	        "                     [--max-queue-depth N] [--max-block-size SIZE]\n"
	        "                     [--max-file-size SIZE] [--max-files N] [--max-depth N]\n"
	        "Runs the I/O a coordinator asks for, only on files under the --allow paths\n"
	        "(or on block devices given as --allow paths; writing to a device also needs\n"
	        "--allow-device-writes), or on NFS exports given as --allow nfs://HOST/EXPORT\n"
	        "[/PATH], reached by its own client with the campaign's uid and gid (root's\n"
	        "only with --allow-nfs-root).\n"
	        "Liveness (default: the coordinator's, else 1s, 3 and 2s): send heartbeats at\n"
	        "least every --heartbeat; the coordinator is lost after --heartbeat-misses of\n"
	        "its intervals in silence; workers stop their I/O once the coordinator has not\n"
	        "been heard for --dead-man (whether this agent is stopped, dead or cut off).\n"
	        "Caps on any plan (a Prepare over one is refused): --max-workers (default 32\n"
	        "per CPU), --max-queue-depth (1024), --max-block-size (16MiB), --max-file-size\n"
	        "(per worker file, and a worker's file set's bytes, 1TiB), --max-files (a file\n"
	        "workload's files on this agent, 1000000) and --max-depth (of a file set, 4).\n"
	        "TLS: DIR/NAME.crt, DIR/NAME.key and DIR/ca.crt (from `iocurve certs agent`);\n"
	        "--tls-fd reads the three from descriptors it inherited (`iocurve run`'s local\n"
	        "agents: their keys are on no disk) and closes them.\n"
	        "Certificate failures no retry can mend (the coordinator's certificate is not\n"
	        "from DIR/ca.crt, or the coordinator refuses this agent's) end the agent with\n"
	        "status 1 after 5 attempts in a row; an unreachable coordinator is retried.\n"
	        "--coordinator and --tls default to $IOCURVE_AGENT_COORDINATOR and $IOCURVE_TLS\n"
	        "when those are set.\n");
}

/* Every frame from the coordinator keeps the workers' dead-man from firing. */
static void agent_on_heard(void *arg, uint64_t now_ns)
{
	struct agent_main *m = arg;

	plan_alive(m->plan, now_ns);
}

static void agent_on_welcome(void *arg, uint64_t deadman_ms, uint64_t caps)
{
	struct agent_main *m = arg;

	plan_set_deadman(m->plan, deadman_ms);
	plan_set_caps(m->plan, caps);
}

static void agent_on_message(void *arg, const Iocurve__Envelope *env)
{
	struct agent_main *m = arg;

	plan_handle(m->plan, env);
}

/* Dead-man: no coordinator, no I/O. */
static void agent_on_lost(void *arg)
{
	struct agent_main *m = arg;

	plan_stop(m->plan, "lost the coordinator");
}

static void agent_on_give_up(void *arg)
{
	struct agent_main *m = arg;

	m->exit_status = 1;
	event_base_loopexit(m->a.base, NULL);
}

static bool agent_busy(void *arg)
{
	struct agent_main *m = arg;

	return plan_running(m->plan);
}

static const struct link_cbs agent_link_cbs = {
    .on_heard = agent_on_heard,
    .on_welcome = agent_on_welcome,
    .on_message = agent_on_message,
    .on_lost = agent_on_lost,
    .on_give_up = agent_on_give_up,
    .busy = agent_busy,
};

/* What the plan sends goes over the link. */
static void agent_send(void *arg, const Iocurve__Envelope *env)
{
	struct agent_main *m = arg;

	link_send(m->link, env);
}

static void agent_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct agent_main *m = arg;

	log_info("%s: stopping", strsignal((int)sig));
	plan_stop(m->plan, "agent stopping");
	link_stop(m->link);
	/* Let close_notify go out, then leave. */
	event_base_loopexit(m->a.base, &(struct timeval){0, 200 * 1000});
}

static void agent_sigchld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct agent_main *m = arg;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		plan_child_exited(m->plan, pid, status);
}

static int agent_add_label(struct agent *a, const char *text)
{
	struct error err;

	if (label_parse(text, &a->labels, &a->nlabels, &err) < 0) {
		fprintf(stderr, "iocurve-agent: --%s\n", err.msg);
		return -1;
	}
	return 0;
}

/* --heartbeat and --dead-man: 100ms to 1h; --heartbeat-misses: 1 to 100. */
static int agent_parse_liveness(struct link_opts *o, int opt, const char *arg)
{
	struct error err;
	uint64_t ns;
	char *end;

	if (opt == 'M') {
		unsigned long n = strtoul(arg, &end, 10);

		if (*arg < '0' || *arg > '9' || *end != '\0' || n < 1 || n > 100) {
			fprintf(stderr, "iocurve-agent: --heartbeat-misses %s: expected 1 to 100\n",
			        arg);
			return -1;
		}
		o->misses = (uint32_t)n;
		return 0;
	}
	if (units_parse_duration(arg, &ns, &err) < 0 || ns < 100 * NSEC_PER_MSEC ||
	    ns > 3600 * NSEC_PER_SEC) {
		fprintf(stderr, "iocurve-agent: --%s %s: expected a duration from 100ms to 1h\n",
		        opt == 'H' ? "heartbeat" : "dead-man", arg);
		return -1;
	}
	if (opt == 'H')
		o->heartbeat_ms = ns / NSEC_PER_MSEC;
	else
		o->deadman_ms = ns / NSEC_PER_MSEC;
	return 0;
}

/* --max-workers N, --max-queue-depth N (1 to 2^31), --max-block-size, --max-file-size SIZE. */
static int agent_parse_cap(struct params_caps *caps, int opt, const char *arg)
{
	static const char *const names[] = {"max-workers", "max-queue-depth", "max-block-size",
	                                    "max-file-size"};
	int i = opt - 'w';
	uint64_t v = 0, hi = i == 3 ? UINT64_MAX : 1u << 31;
	struct error err;
	char *end;

	if (i < 2) {
		v = strtoull(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end != '\0')
			v = 0;
	} else if (units_parse_size(arg, &v, &err) < 0) {
		v = 0;
	}
	if (v < 1 || v > hi) {
		fprintf(stderr, "iocurve-agent: --%s %s: expected %s from 1 to %llu\n", names[i],
		        arg, i < 2 ? "a count" : "a size", (unsigned long long)hi);
		return -1;
	}
	if (i == 0)
		caps->workers = (uint32_t)v;
	else if (i == 1)
		caps->queue_depth = (uint32_t)v;
	else if (i == 2)
		caps->block_size = (uint32_t)v;
	else
		caps->file_size = v;
	return 0;
}

/* --max-files N (a file workload's files on this agent), --max-depth N (a file set's). */
static int agent_parse_files_cap(struct params_caps *caps, int opt, const char *arg)
{
	bool files = opt == AGENT_OPT_MAX_FILES;
	uint64_t hi = files ? 1ull << 32 : MIX_FILESET_DEPTH_MAX;
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (*arg < '0' || *arg > '9' || *end != '\0' || v < 1 || v > hi) {
		fprintf(stderr, "iocurve-agent: --%s %s: expected a count from 1 to %llu\n",
		        files ? "max-files" : "max-depth", arg, (unsigned long long)hi);
		return -1;
	}
	if (files)
		caps->files = v;
	else
		caps->depth = (uint32_t)v;
	return 0;
}

/* What the advice on a certificate failure names in place of a directory. */
#define AGENT_TLS_FD_WORDS "(the descriptors of --tls-fd)"

/* The TLS context: from DIR, or from the descriptors of --tls-fd, closed once read. */
static SSL_CTX *agent_tls(struct agent_main *m, const char *tls_dir, struct error *err)
{
	char path[3][32];
	SSL_CTX *ctx;

	if (m->tls_fd[0] < 0)
		return tls_ctx_new(tls_dir, m->a.name, false, err);
	for (int i = 0; i < 3; i++)
		snprintf(path[i], sizeof(path[i]), "/proc/self/fd/%d", m->tls_fd[i]);
	ctx = tls_ctx_new_files(path[0], path[1], path[2], false, err);
	/* Read: the key stays in the context only, out of the workers this agent forks. */
	for (int i = 0; i < 3; i++)
		close(m->tls_fd[i]);
	return ctx;
}

static int agent_parse(struct agent_main *m, int argc, char **argv, const char **tls_dir,
                       int *verbose)
{
	static const struct option opts[] = {
	    {"coordinator", required_argument, NULL, 'c'},
	    {"tls", required_argument, NULL, 't'},
	    {"tls-fd", required_argument, NULL, 'T'},
	    {"name", required_argument, NULL, 'n'},
	    {"allow", required_argument, NULL, 'a'},
	    {"label", required_argument, NULL, 'l'},
	    {"allow-device-writes", no_argument, NULL, 'W'},
	    {"allow-nfs-root", no_argument, NULL, AGENT_OPT_NFS_ROOT},
	    {"max-frame", required_argument, NULL, 'F'},
	    {"heartbeat", required_argument, NULL, 'H'},
	    {"heartbeat-misses", required_argument, NULL, 'M'},
	    {"dead-man", required_argument, NULL, 'D'},
	    {"max-workers", required_argument, NULL, 'w'},
	    {"max-queue-depth", required_argument, NULL, 'x'},
	    {"max-block-size", required_argument, NULL, 'y'},
	    {"max-file-size", required_argument, NULL, 'z'},
	    {"max-files", required_argument, NULL, AGENT_OPT_MAX_FILES},
	    {"max-depth", required_argument, NULL, AGENT_OPT_MAX_DEPTH},
	    {"verbose", no_argument, NULL, 'v'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct agent *a = &m->a;
	struct link_opts *lo = &m->link_opts;
	struct error err;
	int c;

	while ((c = getopt_long(argc, argv, "c:t:n:a:l:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			snprintf(lo->coordinator, sizeof(lo->coordinator), "%s", optarg);
			break;
		case 't':
			*tls_dir = optarg;
			break;
		case 'T':
			if (sscanf(optarg, "%d,%d,%d", &m->tls_fd[0], &m->tls_fd[1],
			           &m->tls_fd[2]) != 3 ||
			    m->tls_fd[0] < 0 || m->tls_fd[1] < 0 || m->tls_fd[2] < 0) {
				fprintf(stderr,
				        "iocurve-agent: --tls-fd %s: give CRT,KEY,CA descriptor "
				        "numbers\n",
				        optarg);
				return -1;
			}
			*tls_dir = AGENT_TLS_FD_WORDS;
			break;
		case 'n':
			snprintf(a->name, sizeof(a->name), "%s", optarg);
			break;
		case 'a':
			if (allow_add(&a->allow, optarg, &err) < 0) {
				fprintf(stderr, "iocurve-agent: %s\n", err.msg);
				return -1;
			}
			break;
		case 'l':
			if (agent_add_label(a, optarg) < 0)
				return -1;
			break;
		case 'v':
			*verbose = 1;
			break;
		case 'W':
			m->plan_opts.allow_device_writes = true;
			break;
		case AGENT_OPT_NFS_ROOT:
			m->plan_opts.allow_nfs_root = true;
			break;
		case 'F': {
			uint64_t v;

			if (units_parse_size(optarg, &v, &err) < 0 || v < FRAME_MAX_LOWEST ||
			    v > FRAME_MAX_HIGHEST) {
				fprintf(stderr,
				        "iocurve-agent: --max-frame %s: expected a size from 1KiB "
				        "to 1GiB\n",
				        optarg);
				return -1;
			}
			lo->max_frame = (size_t)v;
			break;
		}
		case 'H':
		case 'D':
		case 'M':
			if (agent_parse_liveness(lo, c, optarg) < 0)
				return -1;
			break;
		case 'w':
		case 'x':
		case 'y':
		case 'z':
			if (agent_parse_cap(&m->plan_opts.caps, c, optarg) < 0)
				return -1;
			break;
		case AGENT_OPT_MAX_FILES:
		case AGENT_OPT_MAX_DEPTH:
			if (agent_parse_files_cap(&m->plan_opts.caps, c, optarg) < 0)
				return -1;
			break;
		case 'V':
			printf("iocurve-agent %s\n", IOCURVE_VERSION);
			exit(0);
		case 'h':
			agent_usage(stdout);
			exit(0);
		default:
			agent_usage(stderr);
			return -1;
		}
	}
	if (lo->coordinator[0] == '\0' && getenv("IOCURVE_AGENT_COORDINATOR") != NULL)
		snprintf(lo->coordinator, sizeof(lo->coordinator), "%s",
		         getenv("IOCURVE_AGENT_COORDINATOR"));
	if (*tls_dir == NULL && getenv("IOCURVE_TLS") != NULL && getenv("IOCURVE_TLS")[0] != '\0')
		*tls_dir = getenv("IOCURVE_TLS");
	if (optind != argc || lo->coordinator[0] == '\0' || *tls_dir == NULL) {
		agent_usage(stderr);
		return -1;
	}
	if (a->allow.n == 0) {
		fprintf(stderr, "iocurve-agent: at least one --allow PATH is needed: the agent "
		                "touches nothing else\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct agent_main m = {0};
	struct agent *a = &m.a;
	struct link_opts *lo = &m.link_opts;
	struct event *sigs[3];
	const char *tls_dir = NULL;
	struct error err;
	unsigned seed;
	int verbose = 0;
	char tag[160];

	m.tls_fd[0] = m.tls_fd[1] = m.tls_fd[2] = -1;
	params_caps_default(&m.plan_opts.caps);
	if (gethostname(a->host, sizeof(a->host)) < 0)
		snprintf(a->host, sizeof(a->host), "unknown");
	if (agent_parse(&m, argc, argv, &tls_dir, &verbose) < 0)
		return 2;
	if (a->name[0] == '\0')
		snprintf(a->name, sizeof(a->name), "%.127s", a->host);
	if (!certs_name_valid(a->name)) {
		fprintf(stderr,
		        "iocurve-agent: '%s' is not a valid agent name (letters, digits, "
		        "'.', '_', '-'); give one with --name\n",
		        a->name);
		return 2;
	}
	snprintf(tag, sizeof(tag), "iocurve-agent[%s]", a->name);
	log_init(tag, verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	if (netaddr_parse(lo->coordinator, &lo->addr, &lo->addrlen, &err) < 0) {
		log_error("--coordinator %s", err.msg);
		return 2;
	}
	if (skew_parse(&a->skew, getenv(SKEW_ENV), &err) < 0) {
		log_error("%s", err.msg);
		return 2;
	}
	if (a->skew.on)
		log_warn("test clock skew on: %+lld ns, %+.3f ppm", (long long)a->skew.offset_ns,
		         a->skew.ppm);
	lo->tls_dir = tls_dir;
	lo->ssl_ctx = agent_tls(&m, tls_dir, &err);
	if (lo->ssl_ctx == NULL) {
		log_error("%s", err.msg);
		return 1;
	}
	/*
	 * The coordinator knows an agent by its certificate's name: one copied under
	 * another agent's file name would join as that other agent.
	 */
	if (tls_ctx_name(lo->ssl_ctx, tag, sizeof(tag)) < 0 || strcmp(tag, a->name) != 0) {
		log_error("%s/%s.crt: is the certificate of '%s', not of '%s' (--name); make %s's "
		          "with `iocurve certs agent DIR %s` in the coordinator's directory and "
		          "copy it here",
		          tls_dir, a->name,
		          tls_ctx_name(lo->ssl_ctx, tag, sizeof(tag)) < 0 ? "nobody" : tag, a->name,
		          a->name, a->name);
		SSL_CTX_free(lo->ssl_ctx);
		return 1;
	}
	if (RAND_bytes((unsigned char *)&seed, sizeof(seed)) != 1)
		seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	srandom(seed);
	signal(SIGPIPE, SIG_IGN);

	a->base = conn_base_new();
	sigs[0] = evsignal_new(a->base, SIGTERM, agent_signal_cb, &m);
	sigs[1] = evsignal_new(a->base, SIGINT, agent_signal_cb, &m);
	sigs[2] = evsignal_new(a->base, SIGCHLD, agent_sigchld_cb, &m);
	for (int i = 0; i < 3; i++)
		event_add(sigs[i], NULL);
	log_info("starting: coordinator %s, %zu allowed path(s)", lo->coordinator, a->allow.n);
	a->stall = stall_new(a->base);
	m.plan = plan_new(a, &m.plan_opts, agent_send, &m);
	m.link = link_new(a, lo, &agent_link_cbs, &m);
	link_start(m.link);
	event_base_dispatch(a->base);

	plan_free(m.plan);
	link_free(m.link);
	stall_free(a->stall);
	for (int i = 0; i < 3; i++)
		event_free(sigs[i]);
	event_base_free(a->base);
	SSL_CTX_free(lo->ssl_ctx);
	allow_free(&a->allow);
	label_free(a->labels, a->nlabels);
	log_info("stopped");
	return m.exit_status;
}
