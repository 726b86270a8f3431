# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the guest scripts of the real ULPs share (scripts/nvmeof-guest.sh,
# scripts/nfsrdma-guest.sh): PID 1 of a guest whose root is the host's own
# Debian, its results as JSON lines in /mrcore-out/results.jsonl, the RDMA
# devices of one kernel (a veth pair each) or of two guests on a wire, the
# control channel from the first guest to the second, rdma_mrcore loaded
# and its counters checked, the wire cut, the kmemleak scan.  Sourced after
# /mrcore-out/config.sh (MODROOT, MRCORE_KO, TOPOLOGY, ROLE); the caller
# sets ULP_TAG, the prefix of its messages.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
R=/mrcore-out

log() {
	echo "$ULP_TAG: $*"
	echo "$*" >>$R/guest.log
}

# emit JSON: one result line, from key=value words (numbers stay numbers).
emit() {
	python3 - "$@" >>$R/results.jsonl <<'EOF'
import json, sys
d = {}
for kv in sys.argv[1:]:
    k, v = kv.split('=', 1)
    try:
        d[k] = int(v)
    except ValueError:
        d[k] = v
print(json.dumps(d))
EOF
}

error() {
	log "ERROR: $*"
	emit kind=error what="$*"
}

finish() {
	log "powering off"
	emit kind=done
	sync
	# PID 1 must outlive the power-off, which shuts the 9p transport of
	# the host's root down: a binary run from there after the trigger
	# (sleep) can fail with EIO, and an init that then exits panics the
	# guest.  So it waits in bash alone, on a FIFO of devtmpfs that
	# nobody writes (opened read-write, so the open does not block).
	mkfifo /dev/mrcore-park 2>/dev/null || true
	echo o >/proc/sysrq-trigger
	while :; do
		read -r _ <>/dev/mrcore-park
	done
}

mounts() {
	# /tmp of its own, out of the host's sight; but a tree under test
	# that lives in the host's /tmp (a clone there) must stay visible:
	# the overlay's /tmp is writable anyway, its upper a tmpfs.
	case "$MODROOT" in
	/tmp/*) log "the tree is under /tmp: the guest keeps the overlay's /tmp" ;;
	*) mount -t tmpfs -o mode=1777 tmpfs /tmp ;;
	esac
	mount -t tmpfs -o mode=0755 tmpfs /run
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	mount -t configfs configfs /sys/kernel/config
	# The test kernel's modules, as modules_install left them, in place
	# of the host's: modprobe finds the ULPs' cores (nvme-fabrics, nvmet,
	# nfsd) and brd.
	mount --bind "$MODROOT/lib/modules" /lib/modules
}

# One veth pair per device kind, an RDMA device on each end (as the KUnit
# guest does): rdma_cm needs an address on a netdev with a MAC.
setup_pair() { # kind netdev0 netdev1 addr0 addr1
	ip link add "$2" type veth peer name "$3" &&
		ip addr add "$4/24" dev "$2" && ip addr add "$5/24" dev "$3" &&
		ip link set "$2" up && ip link set "$3" up &&
		rdma link add "${1}0" type "$1" netdev "$2" &&
		rdma link add "${1}1" type "$1" netdev "$3"
}

# Two guests (TOPOLOGY=two), as make kunit-2host joins them: the wire is
# eth0, a virtio-net NIC whose other end is the other guest's; rxe0 on eth0
# (203.0.113.N/24); siw0 on vsiw0, a veth end carrying only 198.18.0.N/32,
# its TCP routed to the other guest over eth0 (rdma_cm binds an address to
# the first RDMA device of its netdev, so siw cannot share eth0 with rxe).
# The host is guest 1, the target guest 2.
setup_wire() { # self peer
	ip link set eth0 up && ip addr add "203.0.113.$1/24" dev eth0 &&
		ip link add vsiw0 type veth peer name vsiw1 &&
		ip addr add "198.18.0.$1/32" dev vsiw0 &&
		ip link set vsiw0 up && ip link set vsiw1 up &&
		ip route add "198.18.0.$2/32" via "203.0.113.$2" dev eth0 &&
		ip neigh replace "198.18.0.$2" lladdr "02:00:00:00:00:0$2" \
			dev vsiw0 nud permanent &&
		rdma link add rxe0 type rxe netdev eth0 &&
		rdma link add siw0 type siw netdev vsiw0
}

# One kernel: the target listens on the address of siw1 (rxe1) and the host
# connects to it without binding a source, as make kunit's pairs do:
# rdma_cm then takes that device for both ends (a source address on the
# other end of the veth pair would route the local destination over lo,
# where no RDMA device is, and the connect fails).
addr_of() { # kind side(0 target, 1 host)
	case "$TOPOLOGY$1$2" in
	onesiw0) echo 192.0.2.2 ;;
	onerxe0) echo 198.51.100.2 ;;
	twosiw0) echo 198.18.0.2 ;;
	twosiw1) echo 198.18.0.1 ;;
	tworxe0) echo 203.0.113.2 ;;
	tworxe1) echo 203.0.113.1 ;;
	esac
}

# The two-guest control channel: the second guest serves one command per
# TCP connection on port 7000 (the guest script again, as "ctl COMMAND..."),
# answering with its exit status; "finish" ends the service.
CTL_PORT=7000
ctl_serve() {
	python3 - "$0" $CTL_PORT <<'EOF'
import socket, subprocess, sys
script, port = sys.argv[1], int(sys.argv[2])
srv = socket.create_server(('0.0.0.0', port), reuse_port=True)
while True:
    conn, _ = srv.accept()
    with conn:
        words = conn.makefile().readline().split()
        if words == ['finish']:
            conn.sendall(b'0\n')
            break
        rc = subprocess.call(['bash', script, 'ctl'] + words)
        conn.sendall(b'%d\n' % rc)
EOF
}

ctl() { # COMMAND...: run it in the target guest; its exit status
	python3 - "$*" $CTL_PORT <<'EOF'
import socket, sys, time
for _ in range(300):
    try:
        s = socket.create_connection(('203.0.113.2', int(sys.argv[2])), 5)
        break
    except OSError:
        time.sleep(1)
else:
    sys.exit(99)
s.settimeout(None)
s.sendall(sys.argv[1].encode() + b'\n')
sys.exit(int(s.makefile().readline() or 98))
EOF
}

load_mrcore() {
	[ -e /sys/module/rdma_mrcore ] && return 0
	insmod "$MRCORE_KO" || { error "insmod rdma_mrcore"; return 1; }
}

# await PID SECS [DIAG]: the exit status of background job PID, polled each
# second (a task in D state ignores timeout(1)'s signals), running the
# command DIAG every minute while it lasts; past SECS, its blocked tasks
# and every other go to the console (SysRq w) and the status is 124.
await() {
	local i
	for i in $(seq 1 "$2"); do
		kill -0 "$1" 2>/dev/null || break
		[ -n "${3:-}" ] && [ $((i % 60)) = 0 ] && $3
		sleep 1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo w >/proc/sysrq-trigger
		return 124
	fi
	wait "$1"
}

# counters_zero LABEL: every map of rdma_mrcore undone, every DMA mapping
# unmapped, on every device: what the converted modules took, they gave
# back.  Recorded whether or not rdma_mrcore is loaded.
counters_zero() {
	local d maps unmaps dmaps dunmaps bad=0 total=0
	[ -d /sys/kernel/debug/rdma_mrcore/devices ] || return 0
	for d in /sys/kernel/debug/rdma_mrcore/devices/*; do
		maps=$(awk '$1 == "maps" { s += $2 } END { print s + 0 }' "$d/counters")
		unmaps=$(awk '$1 == "unmaps" { s += $2 } END { print s + 0 }' "$d/counters")
		dmaps=$(awk '$1 == "dma_maps" { s += $2 } END { print s + 0 }' "$d/counters")
		dunmaps=$(awk '$1 == "dma_unmaps" { s += $2 } END { print s + 0 }' "$d/counters")
		total=$((total + dmaps))
		if [ "$maps" != "$unmaps" ] || [ "$dmaps" != "$dunmaps" ]; then
			bad=1
			log "$1: $(basename "$d"): maps $maps unmaps $unmaps dma_maps $dmaps dma_unmaps $dunmaps"
		fi
	done
	emit kind=counters label="$1" balanced=$((1 - bad)) dma_maps=$total
	return $bad
}

# What the connection manager and the neighbour table hold on this guest
# (and, from the host guest, on the target guest): where a reconnection
# that does not come is waiting.
wire_state() {
	log "wire state ($ROLE): $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	log "wire state ($ROLE): $(ip neigh show dev eth0 2>&1 | tr '\n' ';')"
	log "wire state ($ROLE): $(rdma link show 2>&1 | tr '\n' ';')"
	log "wire state ($ROLE): $(rdma statistic show 2>&1 | tr '\n' ';')"
	log "wire state ($ROLE): $(ip -s link show eth0 2>&1 | tr '\n' ';')"
	[ "$ROLE" = host ] && ctl diag
	return 0
}

# wire_cut SECS: in a second (time for the control reply to leave), this
# guest sends nothing on the wire for SECS seconds (netem drops every
# packet), in the background.  Both guests cut: the wire is down for both
# ends while both links stay up.
wire_cut() {
	(
		sleep 1
		tc qdisc replace dev eth0 root netem loss 100% &&
			sleep "$1" && tc qdisc del dev eth0 root
	) >/dev/null 2>&1 &
}

unload_mrcore() { # label
	counters_zero "$1"
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || error "rmmod rdma_mrcore"; }
	return 0
}

# ab_profile_modules: perf looks a loaded module's symbols up in the .ko
# of its name under /lib/modules/$(uname -r); the ones insmod loaded from
# the build (rdma_mrcore, the ports) are linked there, in the guest's
# writable overlay, so that their functions have names in .perf.txt:
# before perf record, which notes each module's file with its build ID.
ab_profile_modules() {
	local dir ko

	dir=/lib/modules/$(uname -r)/extra/mrcore-ab
	mkdir -p "$dir" || return 0
	for ko in "$MRCORE_KO" "$PORTS"/*/*.ko; do
		[ -e "$ko" ] && ln -sf "$ko" "$dir/"
	done
}

# ab_job FILE MIB KIND ROUND VARIANT RW BS IODEPTH END=TRANSPORT...: one
# time-based fio run of an A/B (make nvmeof-ab, make nfsrdma-ab) on MIB of
# FILE, O_DIRECT, its JSON into R, emitted as kind=ab with the ends given.
# With AB_PROFILE=1 perf samples it (cpu-clock, the guest's clock: in
# icount mode its instructions) into the JSON's .perf.txt, a symbol table
# per run (with the modules' functions, ab_profile_modules()), and
# .dso.txt, the share of each module.
ab_job() {
	local name="$6-$7-qd$8" json=$R/ab-$3-r$4-$5-$6-$7-qd$8.json perf=() rc
	if [ "${AB_PROFILE:-0}" = 1 ]; then
		ab_profile_modules
		perf=(perf record -q -a -e cpu-clock -F 4999 -o /tmp/perf.data --)
	fi
	"${perf[@]}" fio --name="$name" --filename="$1" --direct=1 \
		--ioengine=libaio --rw="$6" --bs="$7" --iodepth="$8" \
		--size="$2M" --time_based --runtime="$AB_SECS" --ramp_time=1 \
		--norandommap --randrepeat=0 --output-format=json \
		--output="$json" >/tmp/fio.err 2>&1
	rc=$?
	[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
	if [ "${AB_PROFILE:-0}" = 1 ]; then
		perf report -q -i /tmp/perf.data --stdio --sort sym \
			--percent-limit 0.01 >"${json%.json}.perf.txt" 2>/dev/null
		perf report -q -i /tmp/perf.data --stdio --sort dso \
			>"${json%.json}.dso.txt" 2>/dev/null
		rm -f /tmp/perf.data
	fi
	emit kind=ab device="$3" round="$4" variant="$5" "${@:9}" job="$name" \
		rw="$6" rc=$rc fio_json="$(basename "$json")"
}

# sec_attack KIND NAME FILE MiB MODULE.ko ARGS...: the security steps'
# attack (security_keys of nvmeof-guest.sh and nfsrdma-guest.sh), once
# the ends are up and the harness is loaded.  fio in a loop in the
# background on FILE (16 KiB random writes at iodepth 4 over MiB, each
# pass read back and checked with crc32c); meanwhile the attacker module
# loaded with kind=KIND samples=SEC_SAMPLES ARGS (its init runs the whole
# attack); then fio stopped after its pass (bounded), the module's kernel
# log lines kept in $R/security-KIND-NAME.log (and on the console), the
# module unloaded.  The summary line goes into sum, fio's passes and
# failed ones into runs and fails, the summary's samples, live_served and
# dead_refused into f_samples, f_live and f_dead; ok and why are updated
# with what every attack must show: the module loaded and ended without
# error, 2 * SEC_SAMPLES samples, every live key served, every dead one
# refused, every fio pass verified.
sec_attack() {
	local kind=$1 klog=$R/security-$1-$2.log file=$3 mib=$4 ko=$5 mod fpid
	local n=${SEC_SAMPLES:-4} err
	shift 5
	mod=$(basename "$ko" .ko)
	rm -f /tmp/sec.stop /tmp/sec.rcs /tmp/sec.fio
	(
		while [ ! -e /tmp/sec.stop ]; do
			fio --name=sec --filename="$file" --direct=1 \
				--ioengine=libaio --rw=randwrite --bs=16k \
				--iodepth=4 --size="${mib}M" --verify=crc32c \
				--verify_fatal=1 --do_verify=1 >>/tmp/sec.fio 2>&1
			echo $? >>/tmp/sec.rcs
		done
	) &
	fpid=$!
	dmesg -c >/dev/null
	insmod "$ko" kind="$kind" samples="$n" "$@" ||
		{ ok=0; why="$why; insmod $mod"; }
	touch /tmp/sec.stop
	# A pass that never ends shows its blocked tasks, instead of running
	# into the QEMU timeout.
	await $fpid 900
	[ $? = 124 ] && { ok=0; why="$why; fio still running 900 s after the attack"; }
	dmesg | grep "$mod" >"$klog"
	sed "s/^/$ULP_TAG: /" "$klog"
	[ -e "/sys/module/$mod" ] && rmmod "$mod"
	sum=$(grep -o 'summary .*' "$klog" | tail -1)
	runs=$(awk 'END { print NR }' /tmp/sec.rcs 2>/dev/null)
	fails=$(awk '$1 != 0 { n++ } END { print n + 0 }' /tmp/sec.rcs 2>/dev/null)
	[ -s /tmp/sec.fio ] && [ "$fails" != 0 ] && sed 's/^/fio: /' /tmp/sec.fio
	f_samples=$(sec_field samples) f_live=$(sec_field live_served)
	f_dead=$(sec_field dead_refused) err=$(sec_field error)
	[ -n "$sum" ] || { ok=0; why="$why; no summary"; }
	[ "$err" = 0 ] || { ok=0; why="$why; attacker error $err"; }
	[ "$f_samples" = $((2 * n)) ] || { ok=0; why="$why; $f_samples samples"; }
	[ "$f_live" = "$f_samples" ] || { ok=0; why="$why; live key served $f_live times"; }
	[ "$f_dead" = "$f_samples" ] || { ok=0; why="$why; dead key refused $f_dead times"; }
	[ "${runs:-0}" -ge 1 ] && [ "$fails" = 0 ] ||
		{ ok=0; why="$why; fio: ${fails:-?} of ${runs:-0} runs failed"; }
}
# sec_field NAME: the value of NAME= in the summary line of sec_attack.
sec_field() { echo "$sum" | grep -o " $1=[-0-9]*" | cut -d= -f2; }

# The devices' packet and WR counts and the core's, so far (a profile's
# run of an A/B): what a variant's I/Os cost besides CPU time.
ab_counts() { # label
	local d
	for d in $(rdma link show | awk '{ print $2 }'); do
		log "counts $1: $(rdma statistic show 2>/dev/null | grep "^link $d ")"
	done
	for d in /sys/kernel/debug/rdma_mrcore/devices/*/counters; do
		[ -e "$d" ] && log "counts $1: mrcore $(basename "$(dirname "$d")") $(tr '\n' ' ' <"$d")"
	done
	return 0
}
# kmemleak_report: scan twice (an object is reported once it is seen
# unreferenced in two scans), keep the report and emit its count.
kmemleak_report() {
	if [ -w /sys/kernel/debug/kmemleak ]; then
		log "kmemleak scan"
		echo scan >/sys/kernel/debug/kmemleak
		sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak >$R/kmemleak.txt
		cat $R/kmemleak.txt
		emit kind=kmemleak leaks="$(grep -c '^unreferenced object' $R/kmemleak.txt)"
	elif [ "${AB:-0}" != 1 ]; then
		# (the bench kernel of an A/B run has no kmemleak)
		error "no /sys/kernel/debug/kmemleak"
	fi
}

# kmemleak_clear: forget what boot left, before the first test.
kmemleak_clear() {
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		echo clear >/sys/kernel/debug/kmemleak
	fi
}

# setup_one: one guest's devices, a veth pair per kind of DEVICES.
setup_one() {
	local kind
	for kind in $DEVICES; do
		case $kind in
		siw) setup_pair siw vsiw0 vsiw1 192.0.2.1 192.0.2.2 ;;
		rxe) setup_pair rxe vrxe0 vrxe1 198.51.100.1 198.51.100.2 ;;
		esac || error "$kind setup failed"
	done
}
