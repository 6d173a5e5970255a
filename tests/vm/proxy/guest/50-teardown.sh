# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Files closed, processes killed and the function unbound with transfers in
# flight: nothing leaks, the function binds again and works.
. /tests/vmlib.sh
T=/tests
t teardown $T/fdma_openrm
t unbind_fault $T/fdma_unbind_fault
t revoke $T/fdma_revoke
rmmod fdma
