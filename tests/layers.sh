#!/bin/sh
# SPDX-License-Identifier: MIT
# The coordinator's layers depend one way. For every source file of a layer, the
# preprocessor lists each header it reads (also through other headers); a layer
# fails when it reads a header from a layer above it or a library it must not use:
#   campaign/  no libevent, no ncurses
#   analysis/  no libyaml, no libevent, no ncurses
#   store/     no libevent, no ncurses
#   render/    no libevent, no ncurses
#   net/       nothing of the coordinator
#   run/ view/ daemon/  nothing from a layer above
# In the agent, link.c does not read plan.h nor plan.c link.h (main.c wires them).
# Needs IOCURVE_SOURCE (the source tree) and IOCURVE_BUILD (for the generated protocol).
set -u
src=${IOCURVE_SOURCE:?}
build=${IOCURVE_BUILD:?}
cc=${CC:-cc}
layers="campaign analysis store render net run view daemon cli"
fails=0
checked=0

# forbidden LAYER: extended regex of header paths the layer may not read.
forbidden() {
	above=""
	seen=0
	for l in $layers; do
		[ "$seen" = 1 ] && above="$above|/coordinator/$l/"
		[ "$l" = "$1" ] && seen=1
	done
	case "$1" in
	campaign) libs="event2/|curses" ;;
	analysis) libs="event2/|yaml\.h|curses" ;;
	store | render) libs="event2/|curses" ;;
	net) libs="yaml\.h|curses|/coordinator/(campaign|analysis|store|render)/" ;;
	*) libs="" ;;
	esac
	pat=$(echo "${libs}${above}" | sed 's/^|//')
	echo "${pat:-^\$}"
}

incs="-I$src/common -I$build/proto"
for l in $layers; do
	incs="$incs -I$src/coordinator/$l"
done
for l in $layers; do
	bad=$(forbidden "$l")
	for f in "$src"/coordinator/"$l"/*.c; do
		deps=$($cc -D_GNU_SOURCE -M $incs "$f" 2>&1) || {
			echo "FAIL $f does not preprocess: $deps"
			fails=$((fails + 1))
			continue
		}
		hits=$(echo "$deps" | tr ' \\' '\n\n' | grep -v '^$' | grep -E "$bad" | sort -u)
		if [ -n "$hits" ]; then
			echo "FAIL $l/$(basename "$f") reads what its layer may not:"
			echo "$hits" | sed 's/^/    /'
			fails=$((fails + 1))
		fi
		checked=$((checked + 1))
	done
done
# The agent's link and plan know nothing of each other: main.c wires them.
for pair in "link plan" "plan link"; do
	set -- $pair
	deps=$($cc -D_GNU_SOURCE -M -I"$src/agent" $incs "$src/agent/$1.c" 2>&1) || {
		echo "FAIL agent/$1.c does not preprocess: $deps"
		fails=$((fails + 1))
		continue
	}
	if echo "$deps" | tr ' \\' '\n\n' | grep -q "/agent/$2\.h\$"; then
		echo "FAIL agent/$1.c reads agent/$2.h: link and plan meet only in main.c"
		fails=$((fails + 1))
	fi
	checked=$((checked + 1))
done
echo "layers: $checked files checked, $fails breaking the dependency rule"
[ "$checked" -gt 40 ] || { echo "FAIL too few files found under $src/coordinator"; exit 1; }
[ "$fails" -eq 0 ]
