#!/bin/sh
# Reproduces docs/studies/record.md: recording the gen3 x4 model's test
# generator (4 MiB frames, as fast as the link takes them) to a file, beside
# fio writing the same file system the same way in the same run (a new file,
# the frame size as block size, the buffers as queue depth, io_uring with
# registered buffers, O_DIRECT where fdma uses it, for the same 4 seconds), and beside fdma's old way (write(2) through the
# page cache). Run from the top of the tree after `make`, as a user who may
# write DIR; prints one JSON line per run and target.
#   sh docs/studies/record.sh [RUNS] [DIR] [TMPFS-DIR]
# DIR (default build/) is the disk, TMPFS-DIR (default /dev/shm) tmpfs;
# "-" leaves one out. Needs fio and python3.
set -eu
RUNS=${1:-3}
DISK=${2:-build}
SHM=${3:-/dev/shm}
FDMA=${FDMA:-build/fdma}
URI=sim:gen=3,lanes=4
FRAME=4194304
BUFS=16
SECS=4

command -v fio >/dev/null || { echo "record.sh: no fio (apt-get install fio)" >&2; exit 1; }
CEIL=$("$FDMA" info "$URI" | sed -n 's/^ceiling *\([0-9.]*\) MB\/s device writes.*/\1/p')

# fio_run FILE DIRECT SIZE: fio's sequential write of a new file (SIZE at
# most, for $SECS seconds), as JSON.
fio_run() {
	rm -f "$1"
	fio --name=record --filename="$1" --rw=write --bs=$FRAME --iodepth=$BUFS \
		--ioengine=io_uring --fixedbufs=1 --direct="$2" --size="$3" --runtime=$SECS \
		--fallocate=none --output-format=json 2>/dev/null
	rm -f "$1"
}

# fdma_run FILE ARGS...: one recording, its JSON report.
fdma_run() {
	_f=$1
	shift
	rm -f "$_f"
	"$FDMA" stream "$URI" --testgen --no-check --fps 0 --frame-size $FRAME --buffers $BUFS \
		--seconds $SECS --no-progress -o "$_f" --json "$@"
	rm -f "$_f"
}

for i in $(seq "$RUNS"); do
	for target in disk tmpfs; do
		if [ "$target" = disk ]; then d=$DISK direct=1 size=16G; else d=$SHM direct=0 size=8G; fi
		[ "$d" != - ] || continue
		f=$d/fdma-record-study.$$
		echo "# run $i: $target ($d)" >&2
		# The disk behind this machine's is shared: whatever runs first
		# leaves the host writing back after it, so the order alternates.
		if [ $((i % 2)) = 1 ]; then
			fio_json=$(fio_run "$f" $direct $size)
			new=$(fdma_run "$f")
		else
			new=$(fdma_run "$f")
			fio_json=$(fio_run "$f" $direct $size)
		fi
		old=$(fdma_run "$f" --no-direct --no-uring)
		python3 - "$target" "$i" "$CEIL" "$fio_json" "$new" "$old" <<'PY'
import json, sys
target, run, ceil, fio, new, old = sys.argv[1:]
w = json.loads(fio)["jobs"][0]
def pick(s):
    r = json.loads(s)
    return {k: r[k] for k in ("mbps", "frames", "dropped", "cpu_pct", "io_cpu_pct", "model_cpu_pct",
                              "output_waits", "io_direct", "io")}
print(json.dumps({"target": target, "run": int(run), "ceiling_mbps": float(ceil),
                  "fio_mbps": round(w["write"]["bw_bytes"] / 1e6, 1),
                  "fio_cpu_pct": round(w["usr_cpu"] + w["sys_cpu"], 2),
                  "fdma": pick(new), "write2": pick(old)}))
PY
	done
done
# One hold-mode recording checked frame by frame: played back into the checker.
if [ "$DISK" != - ]; then
	f=$DISK/fdma-record-study.$$
	"$FDMA" stream "$URI" --testgen --fps 0 --frame-size $FRAME --buffers $BUFS --seconds 2 \
		--no-progress -o "$f" --json >"$f.json"
	"$FDMA" play "$URI" "$f" --testgen --frame-size $FRAME --no-progress --json >"$f.play"
	python3 - "$f.json" "$f.play" <<'PY'
import json, sys
s, p = (json.load(open(x)) for x in sys.argv[1:])
print(json.dumps({"check": "played back", "frames": s["frames"], "integrity_errors": s["data_errors"],
                  "checker_good": p["checker_frames"], "checker_bad": p["checker_errors"],
                  "play_mbps": p["mbps"], "play_io": p["io"]}))
PY
	rm -f "$f" "$f.json" "$f.play"
fi
