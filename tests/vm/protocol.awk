# SPDX-License-Identifier: MIT
# protocol.awk: read the guest's init protocol (see init) as it arrives,
# show the programs' output and record what happened.
#
# Variables (-v): token (the marker token), mode ("single": print the
# program's output unchanged; "suite": prefix each line with SUITE/NAME and
# count TAP points per program), suite, dmesg (file for the kernel log),
# results (file for the outcome, read by run-in-vm / run-suite).
#
# Results file, one record a line:
#   kver KVER | ready UPTIME | done | modfail REASON
#   prog N MODE NAME STATUS SECONDS PASSED FAILED SKIPPED NOTE
#   total PASSED FAILED
# A program that crashes, times out, has no TAP plan, or exits non-zero
# without a "not ok" line counts as one more failure (suite mode).

BEGIN {
	marker = "@@" token "@@ "
	cur = ""
	in_dmesg = 0
	tot_pass = 0
	tot_fail = 0
	printf "" > dmesg
	printf "" > results
}

function out(line) {
	if (in_dmesg) {
		print line >> dmesg
		return
	}
	if (cur == "") {
		if (line != "")
			print "guest: " line > "/dev/stderr"
		return
	}
	if (mode == "single") {
		print line
	} else {
		print suite "/" name ": " line
		if (line ~ /^ok [0-9]+/) {
			if (tolower(line) ~ /# *skip/)
				nskip++
			else
				npass++
		} else if (line ~ /^not ok [0-9]+/) {
			if (tolower(line) !~ /# *todo/)
				nfail++
		} else if (line ~ /^1\.\.[0-9]+/) {
			plan = 1
		}
	}
	fflush()
}

function finish_prog(status, secs,    note, extra) {
	note = ""
	extra = 0
	if (status == "") {
		note = "did not finish (the guest died)"
		extra = 1
		status = "-"
		secs = "-"
	} else if (status + 0 == 137 && secs + 0 >= tmo - 1) {
		note = "timed out after " tmo " s"
		extra = 1
	} else if (status + 0 > 128) {
		note = "killed by signal " (status - 128)
		extra = 1
	} else if (status + 0 != 0 && nfail == 0) {
		note = "exit status " status " without a failed test point"
		extra = 1
	} else if (status + 0 == 0 && !plan && mode == "suite") {
		note = "no TAP plan line"
		extra = 1
	}
	if (mode == "suite") {
		nfail += extra
		printf "# %s/%s: exit %s, %d passed, %d failed", suite, name, status, npass, nfail
		if (nskip)
			printf ", %d skipped", nskip
		if (note != "")
			printf " (%s)", note
		printf "\n"
	} else if (note != "" && status != "-" && status + 0 > 128) {
		print "run-in-vm: " name ": " note > "/dev/stderr"
	}
	fflush()
	gsub(/[ \t]+/, "_", note)
	print "prog", cur, pmode, name, status, secs, npass, nfail, nskip, note >> results
	tot_pass += npass
	tot_fail += nfail
	cur = ""
}

{
	sub(/\r$/, "")
	line = $0
	i = index(line, marker)
	if (i == 0) {
		out(line)
		next
	}
	if (i > 1)
		out(substr(line, 1, i - 1))
	n = split(substr(line, i + length(marker)), f, " ")
	rest = substr(line, i + length(marker) + length(f[1]) + 1)
	# Flushed at once: the boot watchdog (tests/vm/boot) reads them.
	if (f[1] == "BOOT") {
		print "kver", f[2] >> results
		fflush(results)
	} else if (f[1] == "MODULE-FAIL") {
		print "modfail", rest >> results
		fflush(results)
		print "guest: module load failed: " rest > "/dev/stderr"
	} else if (f[1] == "READY") {
		print "ready", f[2] >> results
		fflush(results)
	} else if (f[1] == "BEGIN") {
		cur = f[2]
		pmode = f[3]
		tmo = f[4] + 0
		name = f[5]
		npass = nfail = nskip = plan = 0
		if (mode == "suite")
			printf "# %s/%s: start (%s)\n", suite, name, pmode
		fflush()
	} else if (f[1] == "END") {
		if (cur != "")
			finish_prog(f[3], f[4])
	} else if (f[1] == "DMESG-BEGIN") {
		if (cur != "")
			finish_prog("", "")
		in_dmesg = 1
	} else if (f[1] == "DMESG-END") {
		in_dmesg = 0
	} else if (f[1] == "DONE") {
		print "done" >> results
	}
}

END {
	if (cur != "")
		finish_prog("", "")
	print "total", tot_pass, tot_fail >> results
}
