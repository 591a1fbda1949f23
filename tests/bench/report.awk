# SPDX-License-Identifier: MIT
# report.awk: turn the figures of one `make bench` run (the "@@BENCH" lines
# of mrbench, see tests/bench/bench.h; host first, then each guest) into
#   - the JSON file `json` (-v): an array with one object per figure,
#     {"bench","kernel","variant","size","metric","value","unit"}, plus
#     "min" and "max" where the figure is the median of several blocks (its
#     spread), and after each figure its ratio to the first variant of its
#     group (same bench, kernel, size and metric) as metric
#     "<metric>_ratio", unit "x <variant>";
#   - Markdown on stdout: the targets per kernel, met or missed, side by side
#     with the verdicts of the previous run where `prev` (-v) names its
#     verdict file, then one table per benchmark (rows: variant, size,
#     metric; columns: kernels);
#   - the verdicts of this run in `verdicts` (-v), one "target<TAB>kernel
#     <TAB>verdict<TAB>cell<TAB>stamp" line each (-v stamp: when, which
#     commit), for the next run to compare with;
#   - for the plot, in directory `dir` (-v): percall-K-ALIGN.dat (size, then
#     ns per call of each variant; "?" where missing) and percall.gp.
# Only figures of one run are compared: ratios never mix runs or kernels.

BEGIN {
	FS = "\t"
	n = 0
	nk = 0
	nb = 0
}

$1 != "@@BENCH" || NF < 8 { next }

{
	b = $2; k = $3; v = $4; s = $5; m = $6; val = $7 + 0; u = $8
	n++
	B[n] = b; K[n] = k; V[n] = v; S[n] = s; M[n] = m; X[n] = val; U[n] = u
	if (NF >= 10) { LO[n] = $9 + 0; HI[n] = $10 + 0; lo_of[b, k, v, s, m] = LO[n]; hi_of[b, k, v, s, m] = HI[n] }
	if (!(k in kidx)) { kidx[k] = ++nk; kname[nk] = k }
	if (!(b in bidx)) { bidx[b] = ++nb; bname[nb] = b }
	g = b SUBSEP k SUBSEP s SUBSEP m
	# A paired figure is a ratio already.
	if (!(g in base) && b !~ /-paired$/ && m !~ /^vs_/) { base[g] = val; basev[g] = v }
	R[n] = base[g] > 0 ? val / base[g] : ""
	RB[n] = basev[g]
	val_of[b, k, v, s, m] = val
	# Rows of the tables: variants and metrics in order of first
	# appearance, sizes ascending.
	if (!((b, v) in bvseen)) {
		# After the variant that came before it in this kernel's run.
		bvseen[b, v] = 1
		pos = nbv[b] + 1
		if ((b, k) in lastv)
			for (i = 1; i <= nbv[b]; i++)
				if (bv[b, i] == lastv[b, k]) pos = i + 1
		for (i = ++nbv[b]; i > pos; i--)
			bv[b, i] = bv[b, i - 1]
		bv[b, pos] = v
	}
	lastv[b, k] = v
	if (!((b, m) in bmseen)) { bmseen[b, m] = 1; bm[b, ++nbm[b]] = m; munit[b, m] = u }
	if (!((b, s) in bsseen)) { bsseen[b, s] = 1; bs[b, ++nbs[b]] = s + 0 }
	if (b ~ /^percall/ && m == "per_call" && !(s in psseen)) {
		psseen[s] = 1
		psize[++nps] = s
	}
}

function jstr(x) {
	gsub(/\\/, "\\\\", x)
	gsub(/"/, "\\\"", x)
	return "\"" x "\""
}

function jobj(b, k, v, s, m, val, u, i) {
	return sprintf("  {\"bench\": %s, \"kernel\": %s, \"variant\": %s, \"size\": %s, \"metric\": %s, \"value\": %.6g, \"unit\": %s%s}",
		jstr(b), jstr(k), jstr(v), s, jstr(m), val, jstr(u),
		(i in LO) ? sprintf(", \"min\": %.6g, \"max\": %.6g", LO[i], HI[i]) : "")
}

function fmt(x) {
	if (x >= 100)
		return sprintf("%.0f", x)
	return sprintf("%.3g", x)
}

function sname(s) {
	if (s >= 1073741824 && s % 1073741824 == 0) return (s / 1073741824) "GiB"
	if (s >= 1048576 && s % 1048576 == 0) return (s / 1048576) "MiB"
	if (s >= 1024 && s % 1024 == 0) return (s / 1024) "KiB"
	return s "B"
}

function has(b, k, v, s, m) {
	return ((b, k, v, s, m) in val_of)
}

# Sort the numeric array a[1..cnt] in place (cnt is small).
function isort(a, cnt,    i, j, t) {
	for (i = 2; i <= cnt; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}

function is_host(k) {
	return k ~ /^host /
}

# Worst of variant `v` against `bound_k` x variant `ref` + `bound_c` ns
# per call over every percall size and placement on kernel k (sizes from
# `from` bytes): sets T_worst, T_where; returns the number of cells.  The
# ratio of v to ref is the paired one ("<bench>-paired", metric
# "vs_<ref>": the two in turn in each block) where the run has it, with
# ref's figure in those blocks as the bound's scale, else the two cells.
# T_slack: what the bound allows over ref's own ns per call in the worst cell.
function worst_percall(k, v, ref, bound_k, bound_c, from,    a, b, i, s, q, r, x, cnt) {
	T_worst = 0
	T_where = ""
	T_slack = 0
	cnt = 0
	for (a = 0; a < 2; a++) {
		b = a ? "percall-misaligned" : "percall-aligned"
		for (i = 1; i <= nps; i++) {
			s = psize[i]
			if (s + 0 < from || !has(b, k, ref, s, "per_call"))
				continue
			x = val_of[b, k, ref, s, "per_call"]
			if (has(b "-paired", k, v, s, "vs_" ref)) {
				q = val_of[b "-paired", k, v, s, "vs_" ref]
				x = val_of[b "-paired", k, ref, s, "per_call"]
			} else if (has(b, k, v, s, "per_call"))
				q = val_of[b, k, v, s, "per_call"] / x
			else
				continue
			r = q * x / (bound_k * x + bound_c)
			if (r > T_worst) { T_worst = r; T_where = substr(b, 9) " " sname(s); T_slack = (bound_k - 1) * x + bound_c }
			cnt++
		}
	}
	return cnt
}

function verdict(ok, txt) {
	T_verdict = ok ? "met" : "missed"
	return sprintf("%s %s", ok ? "met" : "**missed**", txt)
}

# The seed's loop (vector) of issue 10, each patched allocator with the
# library's choice of backend and with dontunmap forced: "glibc", its wall
# time over glibc's (worst, <= 1); "stock", how much faster than its stock
# build (worst, >= 1.7x); "8MiB", its time inside realloc from 8 MiB on
# over glibc's (worst, <= 2).
function seed(t, k,    i, v, st, r, s, worst, where, found) {
	worst = t == "stock" ? 1e300 : 0
	found = 0
	for (i = 1; i <= n; i++) {
		if (B[i] != "vector" || K[i] != k || V[i] !~ /-retain(-dontunmap)?-realloc$/ ||
		    M[i] != (t == "8MiB" ? "realloc_from_8MiB" : "wall"))
			continue
		v = V[i]
		s = S[i]
		if (t == "stock") {
			st = substr(v, 1, index(v, "-") - 1) "-realloc"
			if (!has("vector", k, st, s, "wall") || X[i] <= 0)
				continue
			r = val_of["vector", k, st, s, "wall"] / X[i]
			if (r < worst) { worst = r; where = v }
		} else {
			if (!has("vector", k, "glibc-realloc", s, M[i]))
				continue
			r = X[i] / val_of["vector", k, "glibc-realloc", s, M[i]]
			if (r > worst) { worst = r; where = v }
		}
		found = 1
	}
	if (!found)
		return "n/a (no figures)"
	sub(/-realloc$/, "", where)
	if (t == "stock")
		return verdict(worst >= 1.7, sprintf("%.2fx (%s)", worst, where))
	return verdict(worst <= (t == "glibc" ? 1.0 : 2.0), sprintf("%.2fx (%s)", worst, where))
}

# The targets, one cell for kernel k (T_verdict: met, missed or n/a).
function target(t, k,    a, b, i, s, r, worst, where, found, best, wsize) {
	T_verdict = "n/a"
	if (t ~ /^seed-/)
		return seed(substr(t, 6), k)
	if (t == "dontunmap" || t == "copy") {
		if (!is_host(k))
			return "n/a (judged natively)"
		if (t == "dontunmap" && !worst_percall(k, "retain-dontunmap", "mremap-dontunmap", 1.5, 1000, 0))
			return "n/a (no figures)"
		if (t == "copy" && !worst_percall(k, "retain-copy", "memcpy+dontneed", 1.5, 1000, 0))
			return "n/a (no figures)"
		# What the bound leaves over the reference there, against what
		# the contract's source checks alone cost (floor).
		a = ""
		if (has("floor", k, "check-source", 0, "per_call"))
			a = sprintf("; the source checks alone %.1f us, the bound leaves %.1f us there",
				    val_of["floor", k, "check-source", 0, "per_call"] / 1000,
				    T_slack / 1000)
		return verdict(T_worst <= 1, sprintf("%.2f of the bound (%s%s)", T_worst, T_where, a))
	}
	if (t == "module" || t == "module-hole") {
		if (!worst_percall(k, "retain-module", t == "module" ? "mremap" : "mremap-to-hole", 1, 0, 0))
			return "n/a (no figures)"
		return verdict(T_worst <= 1.1, sprintf("%.2fx (%s)", T_worst, T_where))
	}
	if (t == "memcpy") {
		found = 0
		worst = 1e300
		for (a = 0; a < 2; a++) {
			b = a ? "percall-misaligned" : "percall-aligned"
			for (i = 1; i <= nps; i++) {
				s = psize[i]
				if (s + 0 < 2097152 || !has(b, k, "retain-module", s, "per_call") ||
				    !has(b, k, "memcpy+dontneed", s, "per_call"))
					continue
				r = val_of[b, k, "memcpy+dontneed", s, "per_call"] / val_of[b, k, "retain-module", s, "per_call"]
				if (r < worst) { worst = r; where = substr(b, 9) " " sname(s) }
				found = 1
			}
		}
		if (!found)
			return "n/a (no figures)"
		return verdict(worst >= 10, sprintf("%.2fx (%s)", worst, where))
	}
	# Issue 10: each backend's call in a process with 10,000 more open
	# descriptors and 10,000 more mappings against the same call in the
	# quiet process (crowded_ratio), worst of 4 KiB and 64 KiB.
	if (t == "crowd") {
		worst = 0
		found = 0
		for (i = 1; i <= n; i++) {
			if (B[i] != "crowd-crowded" || K[i] != k || V[i] !~ /^retain-/ ||
			    M[i] != "crowded_ratio")
				continue
			if (X[i] > worst) {
				worst = X[i]
				where = substr(V[i], 8) " " sname(S[i])
				wsize = S[i]
			}
			found = 1
		}
		if (!found)
			return "n/a (no figures)"
		# The kernel's own call in the same blocks: what the crowd costs
		# without the library.
		if (has("crowd-crowded", k, "mremap-dontunmap", wsize, "crowded_ratio"))
			where = where sprintf("; raw mremap(DONTUNMAP) %.2fx there",
					      val_of["crowd-crowded", k, "mremap-dontunmap", wsize, "crowded_ratio"])
		return verdict(worst <= 1.2, sprintf("%.2fx (%s)", worst, where))
	}
	# A figure, not a target: one growth to twice the size against
	# mremap(MAYMOVE)'s with the same placement, worst (bench grow).
	if (t == "grow") {
		worst = 0
		found = 0
		for (i = 1; i <= n; i++) {
			if (B[i] != "grow-paired" || K[i] != k || M[i] !~ /^vs_/)
				continue
			if (X[i] > worst) { worst = X[i]; where = substr(V[i], 8) " " sname(S[i]) }
			found = 1
		}
		if (!found)
			return "n/a (no figures)"
		return sprintf("%.2fx (%s)", worst, where)
	}
	if (t == "vector") {
		for (i = 1; i <= n; i++)
			if (B[i] == "vector" && K[i] == k && V[i] == "chunk-module" && M[i] == "wall") {
				s = S[i]
				if (!has("vector", k, "glibc-realloc", s, "wall"))
					continue
				r = X[i] / val_of["vector", k, "glibc-realloc", s, "wall"]
				return verdict(r <= 1.0, sprintf("%.2fx (%s)", r, sname(s)))
			}
		return "n/a (no figures)"
	}
	# t == "decommit": against mprotect + MADV_DONTNEED at each chunk
	# size; t == "decommit-mmap": how close to mmap(MAP_FIXED) (a figure).
	worst = 0
	found = 0
	for (i = 1; i <= n; i++) {
		if (B[i] != "release" || K[i] != k || V[i] != "decommit" || M[i] != "release")
			continue
		s = S[i]
		best = val_of["release", k, t == "decommit" ? "mprotect+dontneed" : "mmap-fixed", s, "release"]
		if (!best)
			continue
		r = X[i] / best
		# The ratio taken within each block, where the run has it.
		if (t == "decommit" && has("release", k, "decommit", s, "vs_mprotect+dontneed"))
			r = val_of["release", k, "decommit", s, "vs_mprotect+dontneed"]
		if (r > worst) { worst = r; where = sname(s) }
		found = 1
	}
	if (!found)
		return "n/a (no figures)"
	if (t == "decommit-mmap")
		return sprintf("%.2fx (%s)", worst, where)
	return verdict(worst <= 1.05, sprintf("%.2fx (%s)", worst, where))
}

END {
	# JSON.
	printf "[\n" > json
	for (i = 1; i <= n; i++) {
		printf "%s", jobj(B[i], K[i], V[i], S[i], M[i], X[i], U[i], i) > json
		if (R[i] != "")
			printf ",\n%s", jobj(B[i], K[i], V[i], S[i], M[i] "_ratio", R[i], "x " RB[i]) > json
		printf "%s\n", (i < n ? "," : "") > json
	}
	printf "]\n" > json
	close(json)

	# Targets: this run's verdicts, and the previous run's beside them.
	nt = split("dontunmap copy decommit module module-hole memcpy crowd vector decommit-mmap grow seed-glibc seed-stock seed-8MiB", tid, " ")
	tname["dontunmap"] = "dontunmap backend <= 1.5x raw mremap(DONTUNMAP) + 1 us per call, every size and placement (natively; worst; the two in turn in each block)"
	tname["copy"] = "copy backend <= 1.5x memcpy+DONTNEED + 1 us per call (natively; worst; the two in turn in each block)"
	tname["decommit"] = "decommit <= 1.05x mprotect+dontneed, 4 KiB to 2 MiB (worst; the ratio within each block)"
	tname["module"] = "module per call <= 1.1x mremap(MAYMOVE), every size and placement (worst; the two in turn in each block)"
	tname["module-hole"] = "(same, against mremap into a hole instead of onto an empty mapping)"
	tname["memcpy"] = "memcpy+DONTNEED >= 10x module per call, 2 MiB up (worst)"
	tname["crowd"] = "each backend's call with 10,000 more fds and mappings <= 1.2x the same in a quiet process (worst)"
	tname["vector"] = "vector: chunk-module wall <= glibc realloc"
	tname["decommit-mmap"] = "(figure: decommit against mmap(PROT_NONE, MAP_FIXED), worst)"
	tname["grow"] = "(figure: one growth to twice the size against mremap(MAYMOVE)'s, same placement, worst; natively the dontunmap backend, in guests the module)"
	tname["seed-glibc"] = "seed's loop: patched jemalloc and TCMalloc wall <= glibc's (worst)"
	tname["seed-stock"] = "seed's loop: patched >= 1.7x faster than the stock build (worst)"
	tname["seed-8MiB"] = "seed's loop: time in realloc from 8 MiB <= 2x glibc's (worst)"
	np = 0
	if (prev != "") {
		while ((getline line < prev) > 0) {
			split(line, f, "\t")
			pv[f[1], f[2]] = f[3]
			pstamp[f[2]] = f[5]
			np++
		}
		close(prev)
	}
	printf "### Targets (ratios within one run)\n\n"
	if (np)
		printf "Each cell: this run's verdict, then after the slash the previous run's on that kernel (when: below the table).\n\n"
	printf "| target |"
	for (j = 1; j <= nk; j++) printf " %s |", kname[j]
	printf "\n|---|"
	for (j = 1; j <= nk; j++) printf "---|"
	printf "\n"
	same = 0
	differ = 0
	for (ti = 1; ti <= nt; ti++) {
		t = tid[ti]
		printf "| %s |", tname[t]
		for (j = 1; j <= nk; j++) {
			cell = target(t, kname[j])
			if (verdicts != "" && T_verdict != "n/a")
				printf "%s\t%s\t%s\t%s\t%s\n", t, kname[j], T_verdict, cell, stamp > verdicts
			if (np && T_verdict != "n/a" && (t, kname[j]) in pv) {
				cell = cell " / " (pv[t, kname[j]] == T_verdict ? pv[t, kname[j]] : "**" pv[t, kname[j]] "**")
				if (pv[t, kname[j]] == T_verdict) same++
				else differ++
			}
			printf " %s |", cell
		}
		printf "\n"
	}
	if (verdicts != "")
		close(verdicts)
	if (np) {
		printf "\nVerdicts the same as in the previous run: %d; different: %d (in bold). Previous runs:", same, differ
		for (j = 1; j <= nk; j++)
			if (kname[j] in pstamp)
				printf " %s: %s;", kname[j], pstamp[kname[j]]
		printf "\n"
	}

	# One table per benchmark; each cell "value (ratio to the group's first)".
	for (bi = 1; bi <= nb; bi++) {
		b = bname[bi]
		printf "\n### %s (value [min-max of the blocks], and ratio to the first variant of the same size)\n\n| variant | size | metric |", b
		for (j = 1; j <= nk; j++) printf " %s |", kname[j]
		printf "\n|---|---|---|"
		for (j = 1; j <= nk; j++) printf "---:|"
		printf "\n"
		cnt = nbs[b]
		for (i = 1; i <= cnt; i++) tmp[i] = bs[b, i]
		isort(tmp, cnt)
		for (i = 1; i <= cnt; i++) bs[b, i] = tmp[i]
		for (vi = 1; vi <= nbv[b]; vi++)
		for (si = 1; si <= nbs[b]; si++)
		for (mi = 1; mi <= nbm[b]; mi++) {
			f1 = bv[b, vi]; f2 = bs[b, si]; f3 = bm[b, mi]
			any = 0
			for (j = 1; j <= nk; j++)
				if (has(b, kname[j], f1, f2, f3)) any = 1
			if (!any)
				continue
			printf "| %s | %s | %s (%s) |", f1, sname(f2), f3, munit[b, f3]
			for (j = 1; j <= nk; j++) {
				k = kname[j]
				if (!has(b, k, f1, f2, f3)) { printf " - |"; continue }
				x = val_of[b, k, f1, f2, f3]
				base_x = val_of[b, k, basev[b, k, f2, f3], f2, f3]
				spr = ((b, k, f1, f2, f3) in lo_of) ? sprintf(" [%s-%s]", fmt(lo_of[b, k, f1, f2, f3]), fmt(hi_of[b, k, f1, f2, f3])) : ""
				if (base_x > 0)
					printf " %s%s (%.2fx) |", fmt(x), spr, x / base_x
				else
					printf " %s%s |", fmt(x), spr
			}
			printf "\n"
		}
	}

	# Plot data and script: one panel per kernel and alignment.
	isort(psize, nps)
	npv = nbv["percall-aligned"]
	for (i = 1; i <= npv; i++) pvname[i] = bv["percall-aligned", i]
	gp = dir "/percall.gp"
	printf "set terminal pngcairo noenhanced size 1400,%d font \",10\"\n", 80 + 330 * nk > gp
	printf "set output \"%s/percall.png\"\n", dir > gp
	printf "set datafile missing \"?\"\nset logscale xy\nset grid\nset key top left font \",8\"\n" > gp
	printf "set xlabel \"region size\"\nset ylabel \"ns per call (median)\"\n" > gp
	printf "set xtics (" > gp
	for (i = 1; i <= nps; i++)
		printf "%s\"%s\" %s", (i > 1 ? ", " : ""), sname(psize[i]), psize[i] > gp
	printf ")\n" > gp
	printf "set multiplot layout %d,2 title \"mremap_retain: cost of one move of a populated region (log-log)\"\n", nk > gp
	for (j = 1; j <= nk; j++) {
		k = kname[j]
		for (a = 0; a < 2; a++) {
			b = a ? "percall-misaligned" : "percall-aligned"
			dat = dir "/percall-" j "-" (a ? "misaligned" : "aligned") ".dat"
			printf "size" > dat
			for (i = 1; i <= npv; i++) printf " %s", pvname[i] > dat
			printf "\n" > dat
			for (q = 1; q <= npv; q++) used[q] = 0
			for (i = 1; i <= nps; i++) {
				printf "%s", psize[i] > dat
				for (q = 1; q <= npv; q++) {
					if (has(b, k, pvname[q], psize[i], "per_call")) {
						printf " %.6g", val_of[b, k, pvname[q], psize[i], "per_call"] > dat
						used[q] = 1
					} else
						printf " ?" > dat
				}
				printf "\n" > dat
			}
			close(dat)
			printf "set title \"%s, %s\"\n", k, (a ? "misaligned (4 KiB apart mod 2 MiB)" : "2 MiB aligned") > gp
			# Only the variants measured on this kernel; each keeps its
			# colour (linetype = column) from panel to panel.
			sep = "plot "
			for (q = 1; q <= npv; q++) {
				if (!used[q])
					continue
				printf "%s\"%s\" using 1:%d with linespoints linetype %d title columnhead(%d)", sep, dat, q + 1, q, q + 1 > gp
				sep = ", \\\n     "
			}
			printf "\n" > gp
		}
	}
	printf "unset multiplot\n" > gp
	close(gp)
}
