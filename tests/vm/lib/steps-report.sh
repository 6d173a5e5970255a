# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/lib/steps-report.sh: how the runners of step guests (tests/vm/versal/run.sh,
# tests/vm/proxy/run.sh; /init is tests/vm/lib/steps-init.sh) read a guest's
# console. Sourced; the caller has pass, fail, skip and show.

# steps_results LOG TAG: the console LOG cleaned into LOG.txt; every
# "VMTEST PASS|FAIL|SKIP" outside the kernel-log section reported with TAG
# (a failure with what its step printed before it). Sets STEPS_RAN (checks
# that passed or failed) and STEPS_ENDED (1: the guest reached its end marker).
steps_results() {
	local log=$1 tag=$2 line a name why
	STEPS_RAN=0
	STEPS_ENDED=0
	tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' >"$log.txt"
	while IFS= read -r line; do
		case $line in
		"VMTEST PASS "*) STEPS_RAN=$((STEPS_RAN + 1)); pass "${line#VMTEST PASS } $tag" ;;
		"VMTEST FAIL "*|"VMTEST SKIP "*)
			[[ $line == "VMTEST FAIL "* ]] && STEPS_RAN=$((STEPS_RAN + 1))
			a=${line#VMTEST ????}; a=${a# }
			name=${a%%:*}
			why=${a#*: }
			[ "$why" = "$a" ] && why="(no reason given)"
			if [[ $line == "VMTEST SKIP "* ]]; then
				skip "$name $tag" "$why"
			else
				fail "$name $tag" "$why"
				# what the step printed before its verdict (the guest's "| " lines)
				awk -v want="$line" '/VMTEST (PASS|FAIL|SKIP|BEGIN)/ { if (index($0, want)) exit; n = 0; next }
					{ buf[n++] = $0 } END { for (k = (n > 15 ? n - 15 : 0); k < n; k++) print "    | " buf[k] }' "$log.txt"
			fi ;;
		esac
	done < <(awk '/VMTEST DMESG BEGIN/ { d = 1; next } /VMTEST DMESG END/ { d = 0; next }
		     !d && match($0, /VMTEST (PASS|FAIL|SKIP) .*/) { print substr($0, RSTART) }' "$log.txt")
	[ $STEPS_RAN -gt 0 ] || fail "guest $tag" "no test ran"
	grep -q '^VMTEST END' "$log.txt" && STEPS_ENDED=1
}

# steps_dmesg LOG TAG OUT: the guest kernel's log (the console's, if it
# never printed it) into OUT; it must hold no warning or error.
steps_dmesg() {
	local log=$1 tag=$2 out=$3
	local bad='WARNING|BUG|Oops|scheduling while atomic|general protection|Kernel panic|memory corruption'
	if [ $STEPS_ENDED = 1 ]; then
		sed -n '/^VMTEST DMESG BEGIN/,/^VMTEST DMESG END/p' "$log.txt" >"$out"
	else
		cp "$log.txt" "$out"
	fi
	if grep -E "$bad" "$out" >"$out.bad"; then
		fail "dmesg $tag" "the guest kernel log has warnings or errors:"
		sed 's/^/    | /' "$out.bad"
	elif [ $STEPS_ENDED = 1 ]; then
		pass "dmesg $tag"
	fi
}
