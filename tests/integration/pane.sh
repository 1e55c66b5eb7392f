# SPDX-License-Identifier: MIT
# A tmux pane of the test's own, for the dashboard's tests (after lib.sh): a server of its
# own (-L, never the tmux of whoever runs the tests), skipped where tmux is missing.
# tx runs tmux on it; screen captures the pane into $T/screen; wait_screen PATTERN
# SECONDS waits until the pane shows PATTERN (grep -E); on_screen PATTERN tests it now.
command -v tmux > /dev/null 2>&1 || {
	echo "# skip: tmux is not installed"
	exit 77
}
TMUX_SOCK=iocurve-pane-$$
S=pane-$$
tx() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
trap 'tx kill-server 2>/dev/null || true; cleanup' EXIT
export TERM=xterm-256color LANG=C.UTF-8

screen() { tx capture-pane -p -t "$S" > "$T/screen"; }
wait_screen() {
	n=0
	while :; do
		# A pane that is gone (its command ended, the server with it) is a failure, not
		# a match: its capture fails and used to end the wait as if PATTERN were shown.
		screen || { echo "# the pane is gone (waiting for: $1)"; return 1; }
		grep -Eq -- "$1" "$T/screen" && return 0
		n=$((n + 1))
		if [ "$n" -gt $(($2 * 10)) ]; then
			echo "# the pane shows:"
			sed 's/^/# /' "$T/screen"
			return 1
		fi
		sleep 0.1
	done
}
on_screen() { grep -Eq -- "$1" "$T/screen"; }
