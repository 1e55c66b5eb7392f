/* SPDX-License-Identifier: MIT */
/* The live terminal dashboard of a running campaign: its events, keys, resize and redraws. */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "dashboard_view.h"
#include "log.h"
#include "xalloc.h"

void dashboard_event(struct dashboard *d, const struct event *e)
{
	/* Only record here: drawing waits for the timer, so a burst of events costs one redraw. */
	if (d == NULL || !dashstate_event(&d->st, e))
		return;
	d->dirty = true;
	if (d->st.finished)
		d->confirm = false; /* nothing left to cancel */
}

static void dashboard_show_next(struct dashboard *d, int dir)
{
	int n = (int)d->st.nwl, cur = d->shown >= 0 ? d->shown : d->st.cur_wl;

	if (cur < 0)
		cur = 0;
	/* Around in a ring, over the workloads that have started. */
	for (int i = 1; i <= n; i++) {
		int k = ((cur + dir * i) % n + n) % n;

		if (d->st.wl[k].seen || d->st.wl[k].npts > 0) {
			d->shown = k == d->st.cur_wl ? -1 : k;
			return;
		}
	}
}

void dashboard_notice(struct dashboard *d, const char *msg)
{
	if (d == NULL)
		return;
	snprintf(d->notice, sizeof(d->notice), "%s", msg);
	d->notice_end = clock_now_ns() + DASHBOARD_NOTICE_S * NSEC_PER_SEC;
	d->dirty = true;
}

/* A log line while the screen is ours: kept for stderr, a warning shown at once. */
static void dashboard_log(void *arg, enum log_level level, const char *line, const char *msg)
{
	struct dashboard *d = arg;
	char notice[sizeof(d->notice)];

	if (d->nheld < DASHBOARD_HELD_MAX)
		d->held[d->nheld++] = xstrdup(line);
	else
		d->dropped++;
	if (level <= LOG_LEVEL_WARN) {
		snprintf(notice, sizeof(notice), "%s: %s",
		         level == LOG_LEVEL_ERROR ? "error" : "warn", msg);
		dashboard_notice(d, notice);
	}
}

/* The terminal is back: the lines the screen held, in order, on stderr. */
static void dashboard_release_log(struct dashboard *d)
{
	if (!d->logging)
		return;
	log_set_sink(NULL, NULL);
	d->logging = false;
	for (unsigned i = 0; i < d->nheld; i++) {
		fprintf(stderr, "%s\n", d->held[i]);
		free(d->held[i]);
	}
	if (d->dropped > 0)
		fprintf(stderr,
		        "iocurve: %u later log line(s) not kept while the dashboard was up\n",
		        d->dropped);
	d->nheld = d->dropped = 0;
}

/*
 * A key while the mark's text is typed: bytes of text (UTF-8 comes a byte at a
 * time), Backspace, Enter to stamp it, Esc to drop it. True when a callback ran.
 */
static bool dashboard_prompt_key(struct dashboard *d, int ch)
{
	char why[160];

	if (ch == 27) {
		d->prompt = false;
		return false;
	}
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		/* a whole character: its continuation bytes, then its first */
		while (d->text_len > 0 && ((unsigned char)d->text[d->text_len - 1] & 0xc0) == 0x80)
			d->text_len--;
		if (d->text_len > 0)
			d->text_len--;
		d->text[d->text_len] = '\0';
		return false;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		d->prompt = false;
		if (!mark_text_check(d->text, why, sizeof(why))) {
			char msg[200];

			snprintf(msg, sizeof(msg), "mark not sent: %s", why);
			dashboard_notice(d, msg);
			return false;
		}
		d->cbs.on_mark(d->arg, d->text);
		return true;
	}
	if (ch >= 0x20 && ch <= 0xff && ch != 0x7f && d->text_len < MARK_TEXT_MAX) {
		d->text[d->text_len++] = (char)ch;
		d->text[d->text_len] = '\0';
	}
	return false;
}

/* One key. True when a callback ran: it may have freed d, so touch nothing after. */
static bool dashboard_key(struct dashboard *d, int ch)
{
	if (d->prompt)
		return dashboard_prompt_key(d, ch);
	if (d->confirm) {
		d->confirm = false;
		if ((ch == 'y' || ch == 'Y') && d->cbs.on_cancel != NULL) {
			d->cancel_sent = true;
			d->cbs.on_cancel(d->arg);
			return true;
		}
		return false;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		if (d->cbs.on_detach != NULL) {
			d->cbs.on_detach(d->arg);
			return true;
		}
		break;
	case 'c':
	case 'C':
		if (d->cbs.on_cancel != NULL && !d->st.finished && !d->cancel_sent)
			d->confirm = true;
		break;
	case 'm':
	case 'M':
		if (d->cbs.on_mark != NULL && !d->st.finished && !d->cancel_sent) {
			d->prompt = true;
			d->text_len = 0;
			d->text[0] = '\0';
			d->notice_end = 0;
		}
		break;
	case KEY_LEFT:
		dashboard_show_next(d, -1);
		break;
	case KEY_RIGHT:
		dashboard_show_next(d, 1);
		break;
	case 's':
	case 'S':
		d->sort = (d->sort + 1) % DASHSTATE_SORT_N;
		break;
	case '?':
		d->help = !d->help;
		break;
	case 27: /* Esc */
		d->help = false;
		break;
	case 12: /* ^L: the screen got scribbled on */
		clearok(curscr, TRUE);
		break;
	}
	return false;
}

static void dashboard_on_key(evutil_socket_t fd, short what, void *arg)
{
	struct dashboard *d = arg;
	int ch, keys = 0;

	(void)fd;
	(void)what;
	while ((ch = getch()) != ERR) {
		keys++;
		if (dashboard_key(d, ch))
			return;
	}
	if (keys == 0) {
		/* Readable yet no key, over and over: stdin is at its end. Stop listening. */
		if (++d->idle_reads >= DASHBOARD_IDLE_READS)
			event_del(d->ev_key);
		return;
	}
	d->idle_reads = 0;
	/* A person is waiting for the answer to a key: do not wait for the timer. */
	dashboard_draw(d);
}

static void dashboard_on_winch(evutil_socket_t sig, short what, void *arg)
{
	struct dashboard *d = arg;
	struct winsize ws;

	(void)sig;
	(void)what;
	/* libevent's handler took SIGWINCH from curses: tell it the new size ourselves. */
	endwin();
	refresh();
	if (ioctl(fileno(stdout), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	dashboard_draw(d);
}

static void dashboard_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct dashboard *d = arg;

	(void)fd;
	(void)what;
	if (d->dirty || dashboard_clock(d) != d->drawn_sec)
		dashboard_draw(d);
}

static void dashboard_colours(void)
{
	if (!has_colors())
		return;
	start_color();
	use_default_colors();
	init_pair(DASHBOARD_RED, COLOR_RED, -1);
	init_pair(DASHBOARD_YELLOW, COLOR_YELLOW, -1);
	init_pair(DASHBOARD_CYAN, COLOR_CYAN, -1);
	init_pair(DASHBOARD_GREEN, COLOR_GREEN, -1);
}

struct dashboard *dashboard_new(struct event_base *base, const struct dashboard_cbs *cbs, void *arg)
{
	static const struct timeval tick = {0, 250000}; /* at most 4 redraws a second */
	const char *term = getenv("TERM"), *ctype;
	struct dashboard *d;
	char *cup;
	bool utf8;

	if (term == NULL || *term == '\0' || !isatty(fileno(stdin)) || !isatty(fileno(stdout)))
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->base = base;
	if (cbs != NULL)
		d->cbs = *cbs;
	d->arg = arg;
	d->st.cur_wl = d->st.cur_step = d->shown = -1;
	/*
	 * The character set only (never LC_NUMERIC: the event lines and result
	 * files need '.' decimals): curses needs it to draw UTF-8. Put back on free.
	 */
	ctype = setlocale(LC_CTYPE, NULL);
	d->old_ctype = xstrdup(ctype != NULL ? ctype : "C");
	setlocale(LC_CTYPE, "");
	utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	d->le = utf8 ? "\u2264" : "<=";
	d->sep = utf8 ? " \u00b7 " : " | ";
	d->arrows = utf8 ? "\u2190/\u2192" : "<-/->";
	/* newterm, not initscr: an unknown TERM must be an answer, not an exit. */
	if ((d->screen = newterm(NULL, stdout, stdin)) == NULL)
		goto err;
	set_term(d->screen);
	/* A terminal that cannot move the cursor cannot show a dashboard. */
	cup = tigetstr("cup");
	if (cup == NULL || cup == (char *)-1)
		goto err;
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	dashboard_colours();
	d->ev_key = event_new(base, fileno(stdin), EV_READ | EV_PERSIST, dashboard_on_key, d);
	d->ev_winch = evsignal_new(base, SIGWINCH, dashboard_on_winch, d);
	d->ev_tick = event_new(base, -1, EV_PERSIST, dashboard_on_tick, d);
	if (d->ev_key == NULL || d->ev_winch == NULL || d->ev_tick == NULL ||
	    event_add(d->ev_key, NULL) != 0 || event_add(d->ev_winch, NULL) != 0 ||
	    event_add(d->ev_tick, &tick) != 0)
		goto err;
	log_set_sink(dashboard_log, d);
	d->logging = true;
	dashboard_draw(d);
	return d;
err:
	dashboard_free(d);
	return NULL;
}

void dashboard_free(struct dashboard *d)
{
	if (d == NULL)
		return;
	if (d->ev_key != NULL)
		event_free(d->ev_key);
	if (d->ev_winch != NULL)
		event_free(d->ev_winch);
	if (d->ev_tick != NULL)
		event_free(d->ev_tick);
	if (d->screen != NULL) {
		endwin();
		delscreen(d->screen);
	}
	dashboard_release_log(d);
	if (d->old_ctype != NULL) {
		setlocale(LC_CTYPE, d->old_ctype);
		free(d->old_ctype);
	}
	dashstate_free(&d->st);
	free(d);
}
