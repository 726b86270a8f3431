#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# /init of the test guest (busybox sh).  Mode from the kernel command line:
#   mrcore.mode=kunit  load rdma_mrcore, the harness and every KUnit module,
#                      dump each suite's KTAP from debugfs
#   mrcore.mode=demo   load rdma_mrcore, the harness and the demo module
#   mrcore.mode=operate  the captures of Documentation/operating.rst
#                      (scripts/operating.sh): the installed module's
#                      files, then each case of mrcore_operate.ko with its
#                      trace, kernel messages and counters, then a device
#                      removal
#   mrcore.mode=bench  (bench kernel) perftest's ib_read_bw/ib_write_bw on
#                      each device, then the benchmark module mrcore_bench
#                      (mrcore.perftest_secs=N: duration of each perftest run)
#   mrcore.mode=kunit2host  (make kunit-2host) the initiator of two guests
#                      joined by a virtio-net wire: waits for the peer, loads
#                      the ULP adapters and mrcore_2host.ko (the *_2host
#                      suites), counts the packets on the wire, tells the
#                      peer to stop, loads mrcore_2host_poweroff.ko once the
#                      peer serves again, dumps the KTAP
#   mrcore.mode=demo2host  (make demo) the initiator again: waits for the
#                      peer, loads mrcore_2host.ko with no suite selected
#                      and mrcore_2host_demo.ko, whose transfers to the
#                      peer print table rows, counting the packets on the
#                      wire; tells the peer to stop, and again once it
#                      serves again
#   mrcore.mode=peer   the other guest: loads the ULP adapters and
#                      mrcore_2host_peer.ko, which serves the initiator's
#                      requests (the adapters' server halves among them),
#                      until told to stop (or mrcore.peer_wait=SECONDS
#                      pass); after its kmemleak scan it serves again,
#                      until the initiator's last suite powers it off (or
#                      says bye again)
#   mrcore.mode=rootfs  (make nvmeof) the guest runs Debian's own userland:
#                      the host's root, shared read-only over virtio-9p
#                      (tag hostroot), under a tmpfs overlay; the share
#                      tagged out (writable) at /mrcore-out; then
#                      mrcore.script=PATH (a path in the host's root) runs
#                      as PID 1 in the new root, and does everything else
# then unload the modules, run a kmemleak scan and power off.
#
# The two-guest modes (kunit2host, demo2host, peer) take mrcore.self=N and mrcore.peer=M (1 or 2): this
# guest's and the other one's number on the wire (scripts/kunit-2host.sh).
# With mrcore.rxe=stock their rxe0 is a device of rdma_rxe_stock.ko (link
# type rxe_stock, UDP port 4792: scripts/rxe-stock.sh), rxe as Linux 6.12
# ships it, instead of the test kernel's own rxe, which has the fix of
# kunit/kernel-patches/ (scripts/kunit-2host.sh --stock-rxe).
#
# Everything meant for the host goes to /dev/ttyS1 (QEMU writes it to a
# file of its own, free of kernel messages), framed by MRCORE-* markers;
# progress also goes to the console (ttyS0).

PATH=/usr/local/sbin:/bin:/sbin:/usr/bin:/usr/sbin
export PATH
# iproute2's tools by full path: busybox sh runs its own applets (its ip
# cannot create a veth pair) whatever PATH says.
IP=/usr/local/sbin/ip
RDMA=/usr/local/sbin/rdma

/bin/busybox mkdir -p /proc /sys /dev /tmp /run
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
/bin/busybox --install -s
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp

# mode rootfs: everything from here on is the script's, in the host's root.
# An overlay (tmpfs upper over the read-only share) rather than tmpfs on a
# few directories: Debian's tools then write where they always do (nvme-cli
# its host NQN under /etc/nvme, kmod nothing, fio its job files in /tmp)
# without this init knowing their paths, and nothing reaches the host.
rootfs() {
	script=
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		mrcore.script=*) script=${arg#mrcore.script=} ;;
		esac
	done
	mkdir -p /mnt/lower /mnt/rw /mnt/root
	# cache=loose: nothing changes the share while a guest runs (the
	# host prepares every input before the boot), so its pages may stay
	# in the guest's page cache; with the default (no cache) each run of
	# a binary read it over 9p again, about a second under TCG.
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
		hostroot /mnt/lower || return 1
	mount -t tmpfs -o mode=0755 tmpfs /mnt/rw || return 1
	mkdir -p /mnt/rw/upper /mnt/rw/work
	mount -t overlay overlay \
		-o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
		/mnt/root || return 1
	mkdir -p /mnt/root/mrcore-out
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 \
		out /mnt/root/mrcore-out || return 1
	for d in dev proc sys; do
		mount --move /$d /mnt/root/$d || return 1
	done
	[ -x "/mnt/root$script" ] || {
		echo "mrcore-guest: ERROR: no script $script in the host's root"
		return 1
	}
	echo "mrcore-guest: switching to the host's root, running $script"
	exec switch_root /mnt/root "$script"
}
if grep -q 'mrcore.mode=rootfs' /proc/cmdline; then
	rootfs
	echo "mrcore-guest: ERROR: mode rootfs failed; powering off"
	echo o >/proc/sysrq-trigger
	poweroff -f
fi

OUT=/dev/ttyS1
# Raw output on the results port: no \n -> \r\n.
stty -F "$OUT" raw -echo 2>/dev/null

say() {
	echo "mrcore-guest: $*"
	echo "MRCORE-LOG $*" >"$OUT"
}

finish() {
	echo "MRCORE-DONE $1" >"$OUT"
	say "powering off ($1)"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

MODE=kunit
ROUNDS=4
PT_SECS=5
SELF=1
PEER=2
PEER_WAIT=3000
FILTER=
BYE_LAST=
RXE_TYPE=rxe
ROCE_PORT=4791
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mrcore.mode=*) MODE=${arg#mrcore.mode=} ;;
	mrcore.load_rounds=*) ROUNDS=${arg#mrcore.load_rounds=} ;;
	mrcore.perftest_secs=*) PT_SECS=${arg#mrcore.perftest_secs=} ;;
	mrcore.self=*) SELF=${arg#mrcore.self=} ;;
	mrcore.peer=*) PEER=${arg#mrcore.peer=} ;;
	mrcore.peer_wait=*) PEER_WAIT=${arg#mrcore.peer_wait=} ;;
	kunit.filter_glob=*) FILTER=${arg#kunit.filter_glob=} ;;
	mrcore.rxe=stock) RXE_TYPE=rxe_stock ROCE_PORT=4792 ;;
	esac
done
say "mode $MODE, kernel $(uname -r)"

$IP link set lo up

# One veth pair per device kind, an RDMA device on each end: rdma_cm on
# siw needs the addresses on a device with a MAC (not lo), and rxe needs an
# Ethernet netdev.  Both ends stay in the initial namespace: no packet can
# leave the guest (QEMU runs with -nic none).
setup_pair() { # kind netdev0 netdev1 addr0 addr1 prefix
	$IP link add "$2" type veth peer name "$3" || return 1
	$IP addr add "$4/$6" dev "$2" || return 1
	$IP addr add "$5/$6" dev "$3" || return 1
	$IP link set "$2" up && $IP link set "$3" up || return 1
	$RDMA link add "${1}0" type "$1" netdev "$2" || return 1
	$RDMA link add "${1}1" type "$1" netdev "$3" || return 1
}

# Two guests (kunit2host, peer): the wire is eth0, a virtio-net NIC whose
# other end is the other guest's (QEMU joins them on a Unix socket; no
# other network).  rxe0 runs on eth0, 203.0.113.N/24.  siw0 cannot share
# eth0 with it: rdma_cm binds an address to the first RDMA device of the
# address's netdev (cma_acquire_dev_by_src_ip), so one of the two kinds
# would never be chosen.  siw0 sits on vsiw0, one end of a veth pair that
# carries only its address 198.18.0.N/32 (and that rdma_cm uses to find
# siw0); siw's TCP connections are routed to the other guest's 198.18.0.M
# over eth0, so they cross the wire too.  The static neighbour entry lets
# rdma_cm resolve the peer's siw address on vsiw0 (the active side binds
# its source address, so the route lookup is made on vsiw0; no packet is
# sent there).
setup_wire() { # self peer
	$IP link set eth0 up &&
		$IP addr add "203.0.113.$1/24" dev eth0 || return 1
	$IP link add vsiw0 type veth peer name vsiw1 || return 1
	$IP addr add "198.18.0.$1/32" dev vsiw0 || return 1
	$IP link set vsiw0 up && $IP link set vsiw1 up || return 1
	$IP route add "198.18.0.$2/32" via "203.0.113.$2" dev eth0 || return 1
	$IP neigh replace "198.18.0.$2" lladdr 02:00:00:00:00:0"$2" \
		dev vsiw0 nud permanent || return 1
	if [ "$RXE_TYPE" = rxe_stock ]; then
		insmod /lib/mrcore/rdma_rxe_stock.ko || return 1
	fi
	$RDMA link add rxe0 type "$RXE_TYPE" netdev eth0 || return 1
	$RDMA link add siw0 type siw netdev vsiw0 || return 1
}

case "$MODE" in
kunit2host | demo2host | peer)
	setup_wire "$SELF" "$PEER" || say "ERROR: wire setup failed"
	$IP addr show >"$OUT" 2>&1
	$IP route show >"$OUT" 2>&1
	;;
*)
	setup_pair siw vsiw0 vsiw1 192.0.2.1 192.0.2.2 24 ||
		say "ERROR: siw setup failed"
	setup_pair rxe vrxe0 vrxe1 198.51.100.1 198.51.100.2 24 ||
		say "ERROR: rxe setup failed"
	;;
esac
for dev in /sys/class/infiniband/*; do
	[ -e "$dev" ] || continue
	say "rdma device $(basename "$dev"): $(cat "$dev/node_type" 2>/dev/null)"
done
$RDMA link show >"$OUT" 2>&1

# Leaks from boot are not ours: forget what kmemleak already suspects.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi

MODDIR=/lib/mrcore
LOADED=
# Module parameters from the kernel command line (insmod does not read it):
# mrcore_harness.bind_src=0 is passed as bind_src=0 to mrcore_harness.ko.
modargs() { # module name
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		"$1".*=*) echo "${arg#"$1".}" ;;
		esac
	done
}

load() { # module file
	args=$(modargs "$(basename "$1" .ko)")
	say "insmod $(basename "$1") $args"
	# shellcheck disable=SC2086 # one word per parameter
	if insmod "$1" $args; then
		echo "MRCORE-INSMOD $(basename "$1" .ko) 0" >"$OUT"
		LOADED="$(basename "$1" .ko) $LOADED"
	else
		echo "MRCORE-INSMOD $(basename "$1" .ko) $?" >"$OUT"
	fi
}

# The package as installed (scripts/install-check.sh --guest): its
# production rdma_mrcore.ko and the sample ULP built against it, which
# WRITEs and READs on the siw and on the rxe device when loaded and checks
# the data; then both are unloaded, before the suites load the test build.
sample() {
	pkg=$MODDIR/pkg
	if [ ! -e $pkg/mrcore_sample.ko ]; then
		say "ERROR: no sample ULP in the initramfs"
		return
	fi
	say "insmod pkg/rdma_mrcore.ko pkg/mrcore_sample.ko"
	insmod $pkg/rdma_mrcore.ko
	echo "MRCORE-SAMPLE insmod rdma_mrcore $?" >"$OUT"
	insmod $pkg/mrcore_sample.ko addrs=192.0.2.1,198.51.100.1
	echo "MRCORE-SAMPLE insmod mrcore_sample $?" >"$OUT"
	dmesg | grep 'mrcore_sample: ' | sed 's/^/MRCORE-SAMPLE dmesg /' >"$OUT"
	for m in mrcore_sample rdma_mrcore; do
		[ -e /sys/module/$m ] || continue
		rmmod $m
		echo "MRCORE-SAMPLE rmmod $m $?" >"$OUT"
	done
}
[ "$MODE" = kunit ] && sample

# Output for scripts/operating.sh: "cap NAME COMMAND..." frames what the
# command prints, with the command line.
cap() {
	n=$1
	shift
	echo "MRCORE-CAPTURE-BEGIN $n $*" >"$OUT"
	"$@" >"$OUT" 2>&1
	echo "MRCORE-CAPTURE-END $n" >"$OUT"
}
counters() { # the counters of every device, "device counter value"
	for d in /sys/kernel/debug/rdma_mrcore/devices/*; do
		sed "s|^|$(basename "$d") |" "$d/counters"
	done
}
if [ "$MODE" = operate ]; then
	T=/sys/kernel/tracing
	[ -e $T/trace ] || mount -t tracefs tracefs $T
	insmod $MODDIR/pkg/rdma_mrcore.ko || say "ERROR: insmod pkg/rdma_mrcore.ko"
	cap version cat /sys/module/rdma_mrcore/version
	cap files find /sys/kernel/debug/rdma_mrcore /sys/module/rdma_mrcore/parameters
	cap events ls -1 $T/events/rdma_mrcore
	cap format cat $T/events/rdma_mrcore/mrcore_io_done/format
	rmmod rdma_mrcore
fi

load $MODDIR/rdma_mrcore.ko
load $MODDIR/mrcore_harness.ko

dump_ktap() {
	echo "MRCORE-KTAP-BEGIN" >"$OUT"
	for d in /sys/kernel/debug/kunit/*; do
		[ -r "$d/results" ] || continue
		s=$(basename "$d")
		echo "MRCORE-SUITE-BEGIN $s" >"$OUT"
		cat "$d/results" >"$OUT"
		echo "MRCORE-SUITE-END $s" >"$OUT"
	done
	echo "MRCORE-KTAP-END" >"$OUT"
}

# Packets and bytes each NIC sent and received, for the report.
netstat_line() { # label
	for n in eth0 lo; do
		st=/sys/class/net/$n/statistics
		[ -d "$st" ] || continue
		echo "MRCORE-NETSTAT $1 $n $(cat $st/tx_packets) $(cat $st/rx_packets) $(cat $st/tx_bytes) $(cat $st/rx_bytes)" >"$OUT"
	done
}

# Where the wire lost packets, if it did: eth0's qdisc (its drops and
# overlimits), the NIC's own drop counters and the non-zero counters of
# rxe0 (its retries, duplicate and out-of-sequence requests, failed sends).
# On the console and the results port, after the suites on the initiator,
# after serving on the peer.
wire_report() { # label
	st=/sys/class/net/eth0/statistics
	[ -d "$st" ] || return 0
	say "wire $1: eth0 tx_dropped $(cat $st/tx_dropped) rx_dropped $(cat $st/rx_dropped) rx_missed $(cat $st/rx_missed_errors) rx_fifo $(cat $st/rx_fifo_errors) rx_over $(cat $st/rx_over_errors)"
	say "wire $1: tc $(/usr/local/sbin/tc -s qdisc show dev eth0 2>&1 | tr -s ' \n' ' ')"
	hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
	[ -d "$hw" ] || return 0
	c=
	for f in "$hw"/*; do
		v=$(cat "$f" 2>/dev/null) || continue
		[ "$v" = 0 ] || c="$c ${f##*/} $v"
	done
	say "wire $1: rxe0$c"
}

# tcpdump counts what crosses eth0 and lo, per protocol: RoCEv2 (UDP 4791, 4792 for rdma_rxe_stock,
# rxe) and siw's TCP between the 198.18.0.N addresses.  -w /dev/null: only
# the counts it prints when stopped are kept; a short decoded sample of each
# goes to the results port.
CAPS=
capture_start() {
	command -v tcpdump >/dev/null || return 0
	# tcpdump drops its privileges to a user it looks up by name.
	echo 'root:x:0:0:root:/:/bin/sh' >/etc/passwd
	echo 'root:x:0:' >/etc/group
	for c in "eth0 roce udp port $ROCE_PORT" "eth0 siw tcp and net 198.18.0.0/16" \
		"lo roce udp port $ROCE_PORT" "lo siw tcp and net 198.18.0.0/16"; do
		set -- $c
		dev=$1 what=$2
		shift 2
		tcpdump -Z root -i "$dev" -nn -s 64 -w /dev/null "$@" \
			>/tmp/cap-$dev-$what.log 2>&1 &
		CAPS="$CAPS $!:$dev:$what"
	done
	tcpdump -Z root -i eth0 -nn -c 6 udp port $ROCE_PORT >/tmp/sample-roce.txt 2>/dev/null &
	tcpdump -Z root -i eth0 -nn -c 6 tcp and net 198.18.0.0/16 >/tmp/sample-siw.txt 2>/dev/null &
	sleep 2
}
capture_stop() {
	for c in $CAPS; do
		pid=${c%%:*} rest=${c#*:}
		kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		n=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured.*/\1/p' /tmp/cap-${rest%%:*}-${rest#*:}.log)
		d=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel.*/\1/p' /tmp/cap-${rest%%:*}-${rest#*:}.log)
		echo "MRCORE-CAPTURE ${rest%%:*} ${rest#*:} ${n:-?} ${d:-?}" >"$OUT"
		[ -n "$n" ] || sed 's/^/MRCORE-LOG tcpdump: /' \
			/tmp/cap-${rest%%:*}-${rest#*:}.log >"$OUT"
	done
	for f in /tmp/sample-roce.txt /tmp/sample-siw.txt; do
		[ -s "$f" ] || continue
		sed 's/^/MRCORE-PACKET /' "$f" >"$OUT"
	done
}

# The initiator's: the peer answers on TCP port 7000 once its server
# listens, and stops serving when told "bye" on 7001.
wait_peer() {
	say "waiting for the peer 203.0.113.$PEER"
	t=0
	until nc -w 5 "203.0.113.$PEER" 7000 </dev/null >/dev/null 2>&1; do
		t=$((t + 1))
		if [ $t -ge 120 ]; then
			say "ERROR: the peer did not answer on 203.0.113.$PEER:7000"
			break
		fi
		sleep 2
	done
}
# The peer answers on 7000 a moment before its bye listener on 7001 may
# be bound: a refused connection is tried again, for up to 20 s.
bye_peer() {
	t=0
	until echo bye | nc -w 10 "203.0.113.$PEER" 7001 >/dev/null 2>&1; do
		t=$((t + 1))
		[ $t -ge 20 ] && return 1
		sleep 1
	done
}
# Whether KUnit's filter (kunit.filter_glob=SUITE[.TEST]) selects the
# power-cut suite; without one every suite runs.  The smoke run of make
# check selects none: its peer then need not serve a second time while
# this guest waits (its kmemleak scan alone took 70 s).
poweroff_wanted() {
	suite=mrcore_poweroff_2host
	[ -z "$FILTER" ] && return 0
	# shellcheck disable=SC2254 # the filter is a glob
	case $suite in
	${FILTER%%.*}) return 0 ;;
	esac
	return 1
}

case "$MODE" in
kunit)
	for m in "$MODDIR"/*.ko; do
		case "$(basename "$m")" in
		rdma_mrcore.ko | mrcore_harness.ko | mrcore_demo.ko | mrcore_bench.ko) ;;
		mrcore_removal.ko | mrcore_operate.ko) ;;
		# two guests only (make kunit-2host)
		mrcore_2host*.ko | rdma_rxe_stock.ko) ;;
		*) load "$m" ;;
		esac
	done
	# Last: its suites remove siw1 and rxe1.
	[ -e $MODDIR/mrcore_removal.ko ] && load $MODDIR/mrcore_removal.ko
	dump_ktap
	;;
kunit2host)
	wait_peer
	ping -c 2 "203.0.113.$PEER" >"$OUT" 2>&1
	netstat_line before
	capture_start
	# mrcore_ulp_*_2host: the NFS-style client and iSER-style initiator.
	for m in mrcore_iser mrcore_nfs; do
		load $MODDIR/$m.ko
	done
	load $MODDIR/mrcore_2host.ko
	capture_stop
	netstat_line after
	wire_report initiator
	# The peer stops serving, unloads and checks itself for leaks; then
	# it serves again, to be powered off by the last suite.
	bye_peer || say "ERROR: could not tell the peer to stop"
	if [ -e $MODDIR/mrcore_2host_poweroff.ko ] && poweroff_wanted; then
		wait_peer
		load $MODDIR/mrcore_2host_poweroff.ko
		# If no suite powered it off (a filter), the peer stops.
		bye_peer
	else
		# As demo2host: both guests scan for leaks at once, then
		# the peer is told to stop (below).
		BYE_LAST=1
	fi
	dump_ktap
	;;
peer)
	serve() {
		# The server halves of the ULP adapters serve mrcore_ulp_*_2host.
		for m in mrcore_iser mrcore_nfs; do
			load $MODDIR/$m.ko
		done
		load $MODDIR/mrcore_2host_peer.ko
		# The bye listener first, then the one that says we serve.
		timeout "$PEER_WAIT" nc -l -p 7001 </dev/null >/tmp/bye 2>&1 &
		byepid=$!
		nc -l -p 7000 </dev/null >/dev/null 2>&1 &
		say "serving until the initiator says bye (at most $PEER_WAIT s)"
		if wait $byepid; then
			say "the initiator said: $(cat /tmp/bye)"
		else
			say "ERROR: no bye from the initiator within $PEER_WAIT s"
		fi
	}
	netstat_line before
	serve
	netstat_line after
	wire_report peer
	;;
demo)
	# The demo's ULP rows use the adapters and their exchanges.
	for m in mrcore_iser mrcore_nfs mrcore_ulp; do
		load $MODDIR/$m.ko
	done
	load $MODDIR/mrcore_demo.ko
	;;
demo2host)
	# mrcore_2host.ko for its connections to the peer only: KUnit runs
	# no suite of a module loaded while its filter matches none.
	wait_peer
	netstat_line before
	capture_start
	echo mrcore-no-suite >/sys/module/kunit/parameters/filter_glob ||
		say "ERROR: cannot set KUnit's filter"
	# mrcore_2host.ko's ULP suites link against the adapters.
	for m in mrcore_iser mrcore_nfs; do
		load $MODDIR/$m.ko
	done
	load $MODDIR/mrcore_2host.ko
	load $MODDIR/mrcore_2host_demo.ko
	capture_stop
	netstat_line after
	# The peer unloads and scans for leaks while this guest does.
	bye_peer || say "ERROR: could not tell the peer to stop"
	;;
operate)
	# Each case alone: its trace, the kernel messages it caused, and the
	# counters before and after.
	echo 'rdma_mrcore:*' >$T/set_event
	for scene in ok dry flush error; do
		echo >$T/trace
		dmesg -c >/dev/null
		counters >/tmp/before
		say "insmod mrcore_operate.ko scene=$scene"
		insmod $MODDIR/mrcore_operate.ko scene=$scene ||
			say "ERROR: mrcore_operate scene=$scene failed"
		rmmod mrcore_operate
		cap "$scene-trace" grep -v '^#' $T/trace
		cap "$scene-dmesg" dmesg -c
		cap "$scene-counters-before" cat /tmp/before
		cap "$scene-counters" counters
	done
	echo >$T/set_event
	cap backends cat /sys/kernel/debug/rdma_mrcore/devices/siw1/backends
	cap weights cat /sys/kernel/debug/rdma_mrcore/devices/siw1/weights
	# A device removed under the module.
	dmesg -c >/dev/null
	cap removal-before ls -1 /sys/kernel/debug/rdma_mrcore/devices
	cap removal-link $RDMA link delete rxe1
	cap removal-after ls -1 /sys/kernel/debug/rdma_mrcore/devices
	cap removal-dmesg dmesg -c
	;;
bench)
	# siw runs on the kernel's TCP: no slow start again after each pause
	# between runs, which would weigh on whichever run comes first.
	echo 0 >/proc/sys/net/ipv4/tcp_slow_start_after_idle
	# The device limit: perftest between the two ends of each device's
	# veth pair, connected with rdma_cm (iWARP cannot do without it).
	port=18515
	for kind in siw rxe; do
		case $kind in
		siw) addr=192.0.2.2 ;;
		rxe) addr=198.51.100.2 ;;
		esac
		for op in read write; do
			for size in 65536 1048576; do
				port=$((port + 1))
				# A run that prints no figure (the client raced the
				# server's listen, or the connection dropped) is
				# tried again, up to three times, on a fresh port.
				for try in 1 2 3; do
					port=$((port + 1))
					say "perftest ib_${op}_bw $kind $size bytes, $PT_SECS s (try $try)"
					ib_${op}_bw -R -F -s "$size" -D "$PT_SECS" \
						-p "$port" >/tmp/pt-server.log 2>&1 &
					server=$!
					sleep 2
					timeout $((PT_SECS + 60)) ib_${op}_bw -R -F \
						-s "$size" -D "$PT_SECS" -p "$port" "$addr" \
						>/tmp/pt-client.log 2>&1
					rc=$?
					sleep 1
					kill "$server" 2>/dev/null
					wait "$server" 2>/dev/null
					grep -q "^ *$size " /tmp/pt-client.log && break
				done
				echo "MRCORE-PERFTEST-BEGIN $kind $op $size $rc" >"$OUT"
				cat /tmp/pt-client.log >"$OUT"
				echo "MRCORE-PERFTEST-END $kind $op $size" >"$OUT"
				echo "--- perftest server ($kind $op $size)"
				cat /tmp/pt-server.log
			done
		done
	done
	load $MODDIR/mrcore_bench.ko
	;;
*)
	say "ERROR: unknown mode $MODE"
	;;
esac

# Unload in reverse order, so the exit paths run under kmemleak too.
for m in $LOADED; do
	rmmod "$m" || say "ERROR: rmmod $m failed"
done

# Every module loaded and unloaded mrcore.load_rounds times (make check 4,
# make soak 50; about 0.5 s a module here), KUnit's filter matching no
# suite, before the kmemleak scan: init and exit paths must not leak.
# rdma_mrcore's ib_client then adds and removes siw0 and rxe0 each round.
load_loop() {
	echo mrcore-no-suite >/sys/module/kunit/parameters/filter_glob ||
		return 1
	mods="$MODDIR/rdma_mrcore.ko $MODDIR/mrcore_harness.ko"
	for m in "$MODDIR"/*.ko; do
		case "$(basename "$m")" in
		# the demo, operate and benchmark modules run a program when
		# loaded; the two-guest ones need the other guest
		rdma_mrcore.ko | mrcore_harness.ko | mrcore_demo.ko) ;;
		mrcore_operate.ko | mrcore_2host*.ko) ;;
		mrcore_bench*.ko) ;;
		*) mods="$mods $m" ;;
		esac
	done
	n=$(echo $mods | wc -w)
	round=0 fails=0
	while [ $round -lt "$ROUNDS" ]; do
		rev=
		for m in $mods; do
			insmod "$m" || fails=$((fails + 1))
			rev="$(basename "$m" .ko) $rev"
		done
		for m in $rev; do
			rmmod "$m" || fails=$((fails + 1))
		done
		round=$((round + 1))
	done
	say "load/unload: $round rounds of $n modules, $fails failures"
	echo "MRCORE-LOADLOOP $round $n $fails" >"$OUT"
}
[ "$MODE" = kunit ] && load_loop

if [ -w /sys/kernel/debug/kmemleak ]; then
	say "kmemleak scan"
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	echo "MRCORE-KMEMLEAK-BEGIN" >"$OUT"
	cat /sys/kernel/debug/kmemleak >"$OUT"
	echo "MRCORE-KMEMLEAK-END" >"$OUT"
	# Also on the console, where scripts/kunit.sh looks for reports.
	cat /sys/kernel/debug/kmemleak
elif [ "$MODE" != bench ]; then
	# The bench kernel is built without kmemleak on purpose.
	say "ERROR: no /sys/kernel/debug/kmemleak"
fi

if [ "$MODE" = demo2host ] || [ -n "$BYE_LAST" ]; then
	# The peer serves again after its scan (for kunit2host's power
	# cut): it stops for good now.
	wait_peer
	bye_peer || say "ERROR: could not tell the peer to stop again"
fi

if [ "$MODE" = peer ]; then
	# Judged up to here; now the initiator's last suite powers this
	# guest off mid-transfer (or says bye again).
	echo "MRCORE-DONE $MODE" >"$OUT"
	load $MODDIR/rdma_mrcore.ko
	load $MODDIR/mrcore_harness.ko
	serve
fi

finish "$MODE"
