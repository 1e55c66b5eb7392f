/* SPDX-License-Identifier: MIT */
/* Local agents for `iocurve run`: real iocurve-agent processes over loopback TLS. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "certs.h"
#include "clock.h"
#include "local.h"
#include "log.h"
#include "fsutil.h"
#include "safefile.h"
#include "xalloc.h"

#define LOCAL_STOP_GRACE_NS (5 * NSEC_PER_SEC)
/*
 * The private certificate directories of earlier versions, /tmp/iocurve-run.PID.XXXXXX:
 * one left by a run that was killed is removed (certificates are in memory now).
 */
#define LOCAL_CERTS_PARENT "/tmp"
#define LOCAL_CERTS_PREFIX "iocurve-run."
#define LOCAL_NAME_PREFIX  "local-"

struct local_agents {
	pid_t *pids;
	unsigned n;
	char *log_dir;
};

int local_agent_binary(char *buf, size_t len)
{
	static const char *const rel[] = {"iocurve-agent", "../agent/iocurve-agent"};
	const char *env = getenv("IOCURVE_AGENT");
	char self[PATH_MAX], *dir;
	ssize_t n;

	if (env != NULL && env[0] != '\0') {
		snprintf(buf, len, "%s", env);
		return access(buf, X_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	dir = dirname(self);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(buf, len, "%s/%s", dir, rel[i]);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* agents.caps as the agent's options, after argv[at]; returns the new count. */
static int local_caps_args(const struct campaign_caps *caps, char **argv, int at, char vals[4][32])
{
	static const char *const flags[] = {"--max-workers", "--max-queue-depth",
	                                    "--max-block-size", "--max-file-size"};
	const uint64_t v[] = {caps->workers, caps->queue_depth, caps->block_size, caps->file_size};

	for (int i = 0; i < 4; i++) {
		if (v[i] == 0)
			continue;
		snprintf(vals[i], 32, "%llu", (unsigned long long)v[i]);
		argv[at++] = (char *)flags[i];
		argv[at++] = vals[i];
	}
	return at;
}

struct local_agents *local_spawn(struct certs_mem *certs, const char *coordinator,
                                 const char *const *allow, size_t nallow, const char *log_dir,
                                 unsigned n, const struct campaign_caps *caps, bool device_writes,
                                 struct error *err)
{
	struct local_agents *la = xcalloc(1, sizeof(*la));
	char bin[PATH_MAX], name[32], fds[48], capv[4][32];
	/* made here: a forked child only fills it in */
	char **argv = xcalloc(10 + 2 * nallow + 8 + 1, sizeof(*argv));
	int dirfd = -1, logfd = -1;

	if (local_agent_binary(bin, sizeof(bin)) < 0) {
		error_set(err, "cannot find the iocurve-agent program next to iocurve; set "
		               "IOCURVE_AGENT to its path");
		free(la);
		return NULL;
	}
	la->pids = xcalloc(n, sizeof(*la->pids));
	la->log_dir = xstrdup(log_dir);
	/*
	 * The logs are opened here, before any agent starts: a resumed directory may be
	 * from elsewhere, and a log planted as a link to a file of ours must stop the
	 * run, not have agent lines appended to that file (safefile_append).
	 */
	dirfd = fs_open_own_dir(log_dir, err);
	if (dirfd < 0)
		goto err;
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%u", LOCAL_NAME_PREFIX, i);
		if (i >= certs->n || certs->agent_key[i] < 0) {
			error_set(err, "local agent %s: no certificate was made for it", name);
			goto err;
		}
		snprintf(fds, sizeof(fds), "%d,%d,%d", certs->agent_crt[i], certs->agent_key[i],
		         certs->ca_crt);
		{
			char logname[64];

			snprintf(logname, sizeof(logname), "agent-%s.log", name);
			logfd = safefile_append(dirfd, log_dir, logname, 0, err);
			if (logfd < 0) {
				error_prefix(err, "local agent log: ");
				goto err;
			}
		}
		/* Taken before the fork: a child whose parent died first would read its reaper. */
		pid_t parent = getpid();

		la->pids[i] = fork();
		if (la->pids[i] < 0) {
			error_set(err, "cannot start local agent %s: %s", name, strerror(errno));
			goto err;
		}
		if (la->pids[i] == 0) {
			int at = 0;

			argv[at++] = bin;
			argv[at++] = "--coordinator";
			argv[at++] = (char *)coordinator;
			argv[at++] = "--tls-fd";
			argv[at++] = fds;
			argv[at++] = "--name";
			argv[at++] = name;
			for (size_t k = 0; k < nallow; k++) {
				argv[at++] = "--allow";
				argv[at++] = (char *)allow[k];
			}
			if (device_writes)
				argv[at++] = "--allow-device-writes";
			argv[at++] = "--label";
			argv[at++] = "local=true";
			argv[at] = NULL;
			/* Its own certificate, key and the CA's certificate, and no other's. */
			const int keep[] = {certs->agent_crt[i], certs->agent_key[i],
			                    certs->ca_crt};

			if (dup2(logfd, STDERR_FILENO) < 0)
				_exit(127);
			for (size_t k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
				if (fcntl(keep[k], F_SETFD, 0) < 0)
					_exit(127);
			if (caps != NULL)
				argv[local_caps_args(caps, argv, at, capv)] = NULL;
			/* Ctrl-C reaches iocurve, which stops the agents in order. */
			signal(SIGINT, SIG_IGN);
			/* A run that dies (SIGKILL, out of memory) takes its agents with it. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
				_exit(127);
			execv(bin, argv);
			fprintf(stderr, "iocurve: cannot run %s: %s\n", bin, strerror(errno));
			_exit(127);
		}
		close(logfd);
		logfd = -1;
		la->n++;
		/* The agent has its own copies: the key stays in no process that needs it not. */
		certs_mem_drop_agent(certs, i);
	}
	free(argv);
	close(dirfd);
	return la;
err:
	free(argv);
	if (logfd >= 0)
		close(logfd);
	if (dirfd >= 0)
		close(dirfd);
	local_stop(la);
	return NULL;
}

void local_cap_hint(const struct campaign *c, const char *msg, char *buf, size_t len)
{
	static const char *const fields[] = {"workers", "queue_depth", "block_size", "file_size"};
	const char *over = strstr(msg, " is over this agent's cap of ");

	buf[0] = '\0';
	if (c->agents_mode != CAMPAIGN_AGENTS_LOCAL || over == NULL)
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t n = strlen(fields[i]);
		const char *v = over;

		/* "FIELD VALUE is over": back over the value, then the field */
		while (v > msg && v[-1] != ' ')
			v--;
		if ((size_t)(v - msg) < n + 1 || strncmp(v - n - 1, fields[i], n) != 0)
			continue;
		snprintf(buf, len,
		         "; for local agents raise it with agents: {local: %u, caps: {%s: %.*s}}",
		         c->agents_count, fields[i], (int)(over - v), v);
		return;
	}
}

void local_stop(struct local_agents *la)
{
	uint64_t deadline = clock_now_ns() + LOCAL_STOP_GRACE_NS;
	unsigned left;

	if (la == NULL)
		return;
	for (unsigned i = 0; i < la->n; i++)
		if (la->pids[i] > 0)
			kill(la->pids[i], SIGTERM);
	do {
		left = 0;
		for (unsigned i = 0; i < la->n; i++) {
			int status;
			pid_t r;

			if (la->pids[i] <= 0)
				continue;
			r = waitpid(la->pids[i], &status, WNOHANG);
			if (r == la->pids[i] || (r < 0 && errno == ECHILD)) {
				if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
					log_warn("local agent %u exited with status %d", i,
					         WEXITSTATUS(status));
				la->pids[i] = 0;
			} else {
				left++;
			}
		}
		if (left)
			nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	} while (left && clock_now_ns() < deadline);
	for (unsigned i = 0; i < la->n; i++) {
		if (la->pids[i] <= 0)
			continue;
		log_warn("local agent %u did not stop; killing it", i);
		kill(la->pids[i], SIGKILL);
		waitpid(la->pids[i], NULL, 0);
	}
	free(la->pids);
	free(la->log_dir);
	free(la);
}

int local_reap(struct local_agents *la, char *msg, size_t len)
{
	int found = 0;

	for (unsigned i = 0; i < la->n; i++) {
		int status;

		if (la->pids[i] <= 0 || waitpid(la->pids[i], &status, WNOHANG) != la->pids[i])
			continue;
		la->pids[i] = 0;
		if (found++)
			continue;
		if (WIFSIGNALED(status))
			snprintf(msg, len,
			         "local agent local-%u killed by signal %d; its log: "
			         "%s/agent-local-%u.log",
			         i, WTERMSIG(status), la->log_dir, i);
		else
			snprintf(msg, len,
			         "local agent local-%u exited with status %d; its log: "
			         "%s/agent-local-%u.log",
			         i, WEXITSTATUS(status), la->log_dir, i);
	}
	return found > 0;
}

/*
 * Remove dir and the files in it. Unlinking while reading may skip names: read
 * again until a pass removes nothing.
 */
static void local_rm_tree(const char *dir)
{
	struct dirent64_raw {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	int removed;
	long n;

	if (fd < 0)
		return;
	do {
		removed = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				const struct dirent64_raw *de = (const void *)(buf + off);

				if (de->name[0] != '.' && unlinkat(fd, de->name, 0) == 0)
					removed++;
				off += de->reclen;
			}
		}
	} while (removed > 0);
	close(fd);
	rmdir(dir);
}

/* Directories of runs whose process is gone (killed, so nothing removed them). */
static void local_certs_clean_stale(void)
{
	DIR *d = opendir(LOCAL_CERTS_PARENT);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[sizeof(LOCAL_CERTS_PARENT) + 256], *end;
		struct stat st;
		long pid;

		if (strncmp(de->d_name, LOCAL_CERTS_PREFIX, strlen(LOCAL_CERTS_PREFIX)) != 0)
			continue;
		pid = strtol(de->d_name + strlen(LOCAL_CERTS_PREFIX), &end, 10);
		if (*end != '.' || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
			continue;
		snprintf(path, sizeof(path), "%s/%s", LOCAL_CERTS_PARENT, de->d_name);
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
			continue;
		log_info("removing %s, left by run %ld that is gone", path, pid);
		local_rm_tree(path);
	}
	closedir(d);
}

int local_certs_new(struct certs_mem *certs, unsigned n, struct error *err)
{
	local_certs_clean_stale();
	return certs_mem_new(certs, n, LOCAL_NAME_PREFIX, err);
}
