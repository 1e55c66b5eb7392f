#!/bin/sh
# SPDX-License-Identifier: MIT
# The terminal dashboard, driven in tmux (being written).
exit 77
