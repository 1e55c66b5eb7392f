#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a program under a unit file's SystemCallFilter=, as systemd would load it.

  unitseccomp.py UNIT [--without CALL[,CALL...]] -- PROGRAM ARGS...   exec PROGRAM filtered
  unitseccomp.py UNIT --list                                           print the allowed calls

The allow-list (the first SystemCallFilter= without '~') less every '~' list, groups
expanded from `systemd-analyze syscall-filter`; any other call fails with EPERM
(SystemCallErrorNumber=EPERM). Loaded with libseccomp, no_new_privs set as systemd
does for an unprivileged service. --without drops calls from the allowed set (a test
that the filter bites).
"""
import ctypes
import ctypes.util
import errno
import os
import subprocess
import sys


def groups():
    out = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager"],
                         capture_output=True, text=True, check=True).stdout
    g, cur = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            cur = g.setdefault(line.split()[0], [])
        elif cur is not None and line.strip() and not line.strip().startswith("#"):
            cur.append(line.split()[0])
    return g


def expand(names, g, seen=None):
    seen = set() if seen is None else seen
    out = set()
    for n in names:
        if n.startswith("@"):
            if n not in seen:
                seen.add(n)
                out |= expand(g.get(n, []), g, seen)
        else:
            out.add(n.split(":")[0])
    return out


def allowed(unit):
    g = groups()
    allow, deny = None, set()
    for line in open(unit):
        line = line.strip()
        if not line.startswith("SystemCallFilter="):
            continue
        v = line.split("=", 1)[1].split()
        if v and v[0].startswith("~"):
            deny |= expand([v[0][1:]] + v[1:], g)
        elif allow is None:
            allow = expand(v, g)
        else:
            allow |= expand(v, g)
    if allow is None:
        sys.exit(f"{unit}: no SystemCallFilter= allow-list")
    return allow - deny


def main():
    unit, args = sys.argv[1], sys.argv[2:]
    calls = allowed(unit)
    if args == ["--list"]:
        print("\n".join(sorted(calls)))
        return
    if args[:1] == ["--without"]:
        calls -= set(args[1].split(","))
        args = args[2:]
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(__doc__)
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(0x00050000 | errno.EPERM)  # SCMP_ACT_ERRNO(EPERM)
    if not ctx:
        sys.exit("seccomp_init failed")
    for name in sorted(calls):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr >= 0:  # a call this architecture lacks resolves negative: nothing to allow
            if lib.seccomp_rule_add(ctx, 0x7FFF0000, nr, 0) < 0:  # SCMP_ACT_ALLOW
                sys.exit(f"seccomp_rule_add {name} failed")
    if lib.seccomp_load(ctx) < 0:
        sys.exit("seccomp_load failed")
    os.execv(args[1], args[1:])


main()
