#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make nvmeof, in the guest: PID 1 of a guest whose root is the host's own
# Debian (scripts/guest-init.sh, mode rootfs), so nvme-cli, fio, kmod,
# iproute2 and bash are Debian's binaries, unmodified.  Reads
# /mrcore-out/config.sh (written by scripts/nvmeof.sh) and, for each RDMA
# device kind and each pairing of NVMe host and target transports (stock =
# the unpatched upstream file, mrcore = the converted one, both built by
# scripts/ulp-ports.sh):
#
#   1. loads the target transport and configures nvmet through configfs: a
#      subsystem, a namespace on a brd RAM disk, an rdma port;
#   2. loads the host transport and runs nvme connect -t rdma;
#   3. runs fio with crc32c verification on the namespace, one job per
#      shape (random writes of the job's region, then the region read back
#      and verified);
#   4. checks rdma_mrcore's counters (every map and DMA mapping undone
#      once the I/O is over), nvme disconnect, undoes the configfs tree,
#      unloads both transports and rdma_mrcore.
#
# Then every module goes, kmemleak scans, and the guest powers off.  Each
# step writes one JSON line to /mrcore-out/results.jsonl; fio's own JSON
# output and this script's log (also on the console) are kept beside it.
# scripts/nvmeof-report.py judges them with the console.

# shellcheck source=/dev/null
. /mrcore-out/config.sh
ULP_TAG=nvmeof-guest
# shellcheck source=scripts/lib/ulp-guest.sh
. "$(dirname "$0")/lib/ulp-guest.sh"

NQN=nqn.2026-12.org.rdma-mrcore:nvmeof
PORT=4420
CFG=/sys/kernel/config/nvmet

load_port() { # module
	insmod "$PORTS/nvme/$1.ko" || { error "insmod $1"; return 1; }
}

target_up() { # variant kind
	modprobe nvmet || { error "modprobe nvmet"; return 1; }
	[ "$1" = mrcore ] && { load_mrcore || return 1; }
	load_port "nvmet_rdma_$1" || return 1
	mkdir "$CFG/subsystems/$NQN" &&
		echo 1 >"$CFG/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$CFG/subsystems/$NQN/namespaces/1" &&
		echo -n "${NS_PATH:-/dev/ram0}" >"$CFG/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$CFG/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$CFG/ports/1" &&
		echo rdma >"$CFG/ports/1/addr_trtype" &&
		echo ipv4 >"$CFG/ports/1/addr_adrfam" &&
		echo "$(addr_of "$2" 0)" >"$CFG/ports/1/addr_traddr" &&
		echo $PORT >"$CFG/ports/1/addr_trsvcid" &&
		ln -s "$CFG/subsystems/$NQN" "$CFG/ports/1/subsystems/$NQN" ||
		{ error "nvmet configfs ($1 on $2)"; return 1; }
}
target_down() { # variant
	rm -f "$CFG/ports/1/subsystems/$NQN"
	[ -d "$CFG/ports/1" ] && rmdir "$CFG/ports/1"
	if [ -d "$CFG/subsystems/$NQN" ]; then
		echo 0 >"$CFG/subsystems/$NQN/namespaces/1/enable"
		rmdir "$CFG/subsystems/$NQN/namespaces/1"
		rmdir "$CFG/subsystems/$NQN"
	fi
	[ -e "/sys/module/nvmet_rdma_$1" ] || return 0
	rmmod "nvmet_rdma_$1" || error "rmmod nvmet_rdma_$1"
}

NSDEV=
CONNECT_OPTS=()
host_up() { # variant kind
	modprobe nvme-fabrics || { error "modprobe nvme-fabrics"; return 1; }
	[ "$1" = mrcore ] && { load_mrcore || return 1; }
	load_port "nvme_rdma_$1" || return 1
	local src=()
	[ "$TOPOLOGY" = two ] && src=(-w "$(addr_of "$2" 1)")
	if ! nvme connect -t rdma -a "$(addr_of "$2" 0)" -s $PORT -n $NQN \
		"${src[@]}" ${CONNECT_DEFAULT:-} "${CONNECT_OPTS[@]}" \
		>/tmp/connect.log 2>&1; then
		cat /tmp/connect.log
		error "nvme connect ($1 host on $2)"
		return 1
	fi
	# The namespace's block device: the one whose subsystem (multipath
	# head) or controller has our NQN.
	NSDEV=
	for _ in $(seq 1 60); do
		for b in /sys/block/nvme*n*; do
			# nvmeXcYnZ: a path of a multipath head, hidden.
			case "$(basename "$b")" in nvme*c*n*) continue ;; esac
			[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = $NQN ] || continue
			NSDEV=/dev/$(basename "$b")
		done
		[ -n "$NSDEV" ] && [ -b "$NSDEV" ] && break
		NSDEV=
		sleep 1
	done
	[ -n "$NSDEV" ] || { error "no namespace after nvme connect"; return 1; }
	log "connected: $NSDEV ($1 host, $2)"
}
host_down() { # variant
	[ -e "/sys/module/nvme_rdma_$1" ] || return 0
	if [ -n "$NSDEV" ]; then
		# Bounded: a disconnect that hangs fails the run, instead of
		# waiting for the QEMU timeout.
		nvme disconnect -n $NQN >/tmp/disconnect.log 2>&1 &
		await $! 300
		case $? in
		0) ;;
		124) error "nvme disconnect hung (300 s; blocked tasks on the console)" ;;
		*) error "nvme disconnect: $(cat /tmp/disconnect.log)" ;;
		esac
	fi
	NSDEV=
	rmmod "nvme_rdma_$1" || error "rmmod nvme_rdma_$1"
}

# One fio job: random writes of a region, then the region read back and
# checked against the crc32c of each block (fio's verify=crc32c); fatal on
# the first mismatch.  Region sizes sum to the pairing's total.
run_job() { # kind host target bs iodepth MiB offset(MiB)
	local name="$4-qd$5" json=$R/fio-$1-$2-$3-$4-qd$5.json
	log "fio $name: $6 MiB at $7 MiB on $NSDEV"
	fio --name="$name" --filename="$NSDEV" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs="$4" --iodepth="$5" --size="$6M" \
		--offset="$7M" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=json --output="$json" \
		>/tmp/fio.err 2>&1
	local rc=$?
	local errs
	errs=$(grep -c -i 'verify' /tmp/fio.err)
	[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
	emit kind=fio device="$1" topology=$TOPOLOGY host="$2" target="$3" \
		job="$name" rc=$rc verify_lines="$errs" fio_json="$(basename "$json")"
}

pairing() { # kind host target
	local ok=1 off=0
	log "=== $1: host $2, target $3 ($TOPOLOGY)"
	if [ "$TOPOLOGY" = two ]; then
		ctl up "$3" "$1" || { error "target guest: up $3 $1"; ok=0; }
	else
		target_up "$3" "$1" || ok=0
	fi
	[ $ok = 1 ] && { host_up "$2" "$1" || ok=0; }
	if [ $ok = 1 ]; then
		for j in $JOBS; do
			IFS=: read -r bs qd mib <<<"$j"
			run_job "$1" "$2" "$3" "$bs" "$qd" "$mib" "$off"
			off=$((off + mib))
		done
		counters_zero "$1 host $2 target $3, connected, idle"
	fi
	host_down "$2"
	if [ "$TOPOLOGY" = two ]; then
		ctl down "$3" "$1" || error "target guest: down $3 $1"
	else
		target_down "$3"
	fi
	unload_mrcore "$1 host $2 target $3, after disconnect"
}
# The faults nvme users meet, on the converted ends (the core's counters are
# theirs).  Each emits kind=fault with ok=1 or 0 and what was seen.
ctrl_count() { # controllers of our subsystem
	local n=0 c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] && n=$((n + 1))
	done
	echo $n
}

# The target module removed while a host is connected (one kernel): the
# port goes (an enabled port holds the module), then rmmod; the host must
# see its controller go (it retries every second for 5 s, then gives up),
# leave nothing behind, and its module must unload.
fault_target_removal() { # kind
	local ok=1 why= gone=0
	log "=== fault: $1: target module removed under a connected host"
	CONNECT_OPTS=(--reconnect-delay=1 --ctrl-loss-tmo=5)
	target_up mrcore "$1" && host_up mrcore "$1" || ok=0
	CONNECT_OPTS=()
	if [ $ok = 1 ]; then
		dd if="$NSDEV" of=/dev/null bs=1M count=4 iflag=direct 2>/dev/null ||
			{ ok=0; why="no I/O before the removal"; }
		rm -f "$CFG/ports/1/subsystems/$NQN"
		rmdir "$CFG/ports/1"
		rmmod nvmet_rdma_mrcore || { ok=0; why="rmmod nvmet_rdma_mrcore failed"; }
		for _ in $(seq 1 90); do
			[ "$(ctrl_count)" = 0 ] && { gone=1; break; }
			sleep 1
		done
		[ $gone = 1 ] || { ok=0; why="the host still has a controller 90 s after"; }
		NSDEV=
	fi
	host_down mrcore
	target_down mrcore
	counters_zero "$1 fault target removal" || { ok=0; why="counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || { ok=0; why="rmmod rdma_mrcore failed"; }; }
	emit kind=fault fault=target_removal device="$1" topology="$TOPOLOGY" \
		ok=$ok why="$why" controller_gone=$gone
}

# A response whose post fails (one kernel; a stock host, so that the
# core's fault points see the converted target's posts alone).  8 MiB are
# written, then read back and verified (fio's verify_only) with the core's
# post_wr fault armed to refuse 3 WRs after 8 pass: each refusal fails one
# response's post, its chain refused whole or cut after its WRITEs.  The
# target keeps such a response until its queue is torn down after the
# drain; the host times the command out (nvme_core io_timeout 5 s),
# reconnects and retries it.  It passes if fio verified every block, the
# target logged one failed response per refused WR, the host reconnected,
# and the counters balance once the target is gone.
fault_resp_post() { # kind
	local ok=1 why= rc=none lost=0 reconn=0 hits=0 tmo
	local f=/sys/kernel/debug/rdma_mrcore/fault/post_wr
	local job=(--name=resppost --direct=1 --ioengine=libaio --rw=randwrite
		--bs=128k --iodepth=16 --size=8M --verify=crc32c --verify_fatal=1)
	log "=== fault: $1: the converted target's response posts fail (stock host)"
	modprobe nvme-core || { ok=0; why="modprobe nvme-core"; }
	tmo=$(cat /sys/module/nvme_core/parameters/io_timeout)
	echo 5 >/sys/module/nvme_core/parameters/io_timeout
	CONNECT_OPTS=(--reconnect-delay=1 --ctrl-loss-tmo=600)
	[ $ok = 1 ] && { target_up mrcore "$1" && host_up stock "$1" || { ok=0; why="up"; }; }
	CONNECT_OPTS=()
	if [ $ok = 1 ]; then
		fio "${job[@]}" --filename="$NSDEV" --do_verify=0 >/tmp/fio.err 2>&1 ||
			{ ok=0; why="fio's writes failed"; sed 's/^/fio: /' /tmp/fio.err; }
	fi
	if [ $ok = 1 ]; then
		dmesg -c >/dev/null
		echo "8 3" >$f || { ok=0; why="arming post_wr"; }
		fio "${job[@]}" --filename="$NSDEV" --verify_only=1 \
			--output-format=json --output=$R/fio-fault-resppost-$1.json \
			>/tmp/fio.err 2>&1 &
		await $! 600
		rc=$?
		read -r _ _ hits <$f
		echo "0 0" >$f
		[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
		lost=$(dmesg | grep -c 'sending cmd response failed')
		reconn=$(dmesg | grep -c 'Successfully reconnected')
		[ "$rc" = 0 ] || { ok=0; why="fio exited $rc"; }
		[ "$hits" = 3 ] || { ok=0; why="$why; post_wr refused $hits WRs, not 3"; }
		[ "$lost" = "$hits" ] || { ok=0; why="$why; $lost failed responses logged for $hits refused WRs"; }
		[ "$reconn" -ge 1 ] || { ok=0; why="$why; no reconnect in the kernel log"; }
	fi
	host_down stock
	target_down mrcore
	echo "$tmo" >/sys/module/nvme_core/parameters/io_timeout
	counters_zero "$1 fault resp post" || { ok=0; why="$why; counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || { ok=0; why="$why; rmmod rdma_mrcore failed"; }; }
	emit kind=fault fault=resp_post device="$1" topology="$TOPOLOGY" \
		host=stock target=mrcore ok=$ok why="$why" fio_rc="$rc" \
		refused="$hits" lost="$lost" reconnects="$reconn" \
		fio_json="fio-fault-resppost-$1.json"
}

# The link down longer than the reconnect delay while fio runs (two
# guests: in one kernel both ends share a device and the traffic never
# leaves it), for LINKDOWN_SECS while a verifying fio job runs, then up.
# How (LINK_FAULT, "auto" picks per device):
#  - down: the host's eth0 goes down (siw);
#  - cut: the wire between the guests is cut, both links staying up
#    (rxe: after its own port went down and up, a stock rxe host's
#    connection request is never answered, stock and converted alike:
#    testing.rst).
# The host must reconnect (the kernel says "Successfully reconnected"),
# fio's verification must pass, and the counters balance once it is over.
fault_link_down() { # kind
	local ok=1 why= rc reconn h=${FAULT_PAIRING%/*} t=${FAULT_PAIRING#*/}
	local how=${LINK_FAULT:-auto}
	[ "$how" = auto ] && { [ "$1" = rxe ] && how=cut || how=down; }
	log "=== fault: $1: link $how ${LINKDOWN_SECS:-20} s during fio (host $h, target $t)"
	ctl up "$t" "$1" || { ok=0; why="target guest: up"; }
	CONNECT_OPTS=(--reconnect-delay=2 --ctrl-loss-tmo=600)
	[ $ok = 1 ] && { host_up "$h" "$1" || { ok=0; why="connect"; }; }
	CONNECT_OPTS=()
	if [ $ok = 1 ]; then
		dmesg -c >/dev/null
		fio --name=linkdown --filename="$NSDEV" --direct=1 \
			--ioengine=libaio --rw=randwrite --bs=128k --iodepth=16 \
			--size="${LINKDOWN_MIB:-16}M" --verify=crc32c \
			--verify_fatal=1 --output-format=json \
			--output=$R/fio-fault-linkdown-$1.json >/tmp/fio.err 2>&1 &
		local fpid=$!
		sleep 3
		if [ "$how" = cut ]; then
			ctl cut "${LINKDOWN_SECS:-20}" || { ok=0; why="target guest: cut"; }
			wire_cut "${LINKDOWN_SECS:-20}"
			sleep 2
			tc qdisc show dev eth0 | grep -q netem || { ok=0; why="$why; cut"; }
			log "wire cut"
			sleep "${LINKDOWN_SECS:-20}"
			while tc qdisc show dev eth0 | grep -q netem; do sleep 1; done
			log "wire back"
		else
			ip link set eth0 down
			log "eth0 down"
			sleep "${LINKDOWN_SECS:-20}"
			ip link set eth0 up
			# A link going down flushes the routes through it: the one
			# to the target's siw address comes back as a network
			# manager would put it back (the connected route of rxe
			# returns alone).
			ip route replace 198.18.0.2/32 via 203.0.113.2 dev eth0
			log "eth0 up"
		fi
		# A host that never comes back (no reconnect, I/O stuck) shows
		# its blocked tasks (SysRq w) instead of running into the QEMU
		# timeout; fio is then killed and the fault fails.
		await $fpid "${LINKUP_WAIT_SECS:-600}" wire_state
		rc=$?
		if [ $rc = 124 ]; then
			log "fio still running ${LINKUP_WAIT_SECS:-600} s after the link came back: blocked tasks on the console"
			kill -9 $fpid
			sleep 10
			# (a fio in D state survives SIGKILL: no wait then)
			rc=137
			kill -0 $fpid 2>/dev/null || { wait $fpid; rc=$?; }
		fi
		[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
		reconn=$(dmesg | grep -c 'Successfully reconnected')
		[ "$rc" = 0 ] || { ok=0; why="fio exited $rc"; }
		[ "$reconn" -ge 1 ] || { ok=0; why="$why; no reconnect in the kernel log"; }
	fi
	host_down "$h"
	ctl down "$t" "$1" || { ok=0; why="$why; target guest: down"; }
	counters_zero "$1 fault link down" || { ok=0; why="$why; counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || ok=0; }
	emit kind=fault fault=link_down device="$1" topology="$TOPOLOGY" \
		host="$h" target="$t" how="$how" \
		ok=$ok why="$why" fio_rc="${rc:-none}" reconnects="${reconn:-0}" \
		fio_json="fio-fault-linkdown-$1.json"
}

# An attacker on another connection of the host's PD while fio runs (one
# kernel: ulp-ports/nvme/key_attack.c learns each key as its command
# reaches the target and sees the host complete it).  The namespace is a
# null_blk device that completes every I/O 200 ms late, so a command stays
# in flight long enough for the positive control.  Per sample the access
# the key is for must be served while the command is in flight and
# refused right after the host completed it; a remote WRITE with a host
# WRITE's key must be refused by the converted host (it grants only
# REMOTE_READ) and is served by the stock one (REMOTE_READ | REMOTE_WRITE
# on every MR): the grant shown, not a failure.  fio verifies every byte
# meanwhile (the attacker's WRITEs put back what they read, or land in a
# READ's buffer before the target's data does).
security_keys() { # kind host
	local ok=1 why= sum runs fails
	local f_samples f_live f_dead f_rt f_rs
	log "=== security: $1: an attacker on the PD of the $2 host"
	modprobe null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 \
		irqmode=2 completion_nsec=200000000 ||
		{ ok=0; why="modprobe null_blk"; }
	[ $ok = 1 ] && { NS_PATH=/dev/nullb0 target_up stock "$1" || { ok=0; why="target"; }; }
	[ $ok = 1 ] && { host_up "$2" "$1" || { ok=0; why="connect"; }; }
	# The attacker's connections come from the e2e harness, on the core.
	[ $ok = 1 ] && { load_mrcore && insmod "$HARNESS_KO" || { ok=0; why="harness"; }; }
	if [ $ok = 1 ]; then
		sec_attack "$1" "$2" "$NSDEV" 2 "$PORTS/nvme/nvme_key_attack.ko" \
			host_module="nvme_rdma_$2"
		f_rt=$(sec_field rights_tries) f_rs=$(sec_field rights_served)
		if [ "$2" = mrcore ]; then
			[ "$f_rs" = 0 ] || { ok=0; why="$why; a host WRITE's key took a remote WRITE $f_rs times"; }
		else
			[ "$f_rs" = "$f_rt" ] || { ok=0; why="$why; stock host: remote WRITE with a WRITE's key served $f_rs of $f_rt"; }
		fi
	fi
	[ -e /sys/module/mrcore_harness ] && rmmod mrcore_harness
	host_down "$2"
	target_down stock
	[ -e /sys/module/null_blk ] && { rmmod null_blk || error "rmmod null_blk"; }
	unload_mrcore "$1 security, $2 host"
	emit kind=security device="$1" topology="$TOPOLOGY" host="$2" target=stock \
		ok=$ok why="${why#; }" samples="${f_samples:-0}" live_served="${f_live:-0}" \
		dead_refused="${f_dead:-0}" rights_tries="${f_rt:-0}" \
		rights_served="${f_rs:-0}" fio_runs="${runs:-0}" fio_failed="${fails:-0}" \
		log="security-$1-$2.log"
}

# A/B (make nvmeof-ab, the bench kernel in icount mode, one kernel): per
# device, AB_ROUNDS rounds; each round connects each variant in turn, the
# order rotated from round to round: stock host and target (A), the same
# again (A', whose ratio to A is the noise), converted host (stock
# target), converted target (stock host).  Each variant runs the AB_JOBS
# fio shapes, time based, on the namespace (filled beforehand, so that a
# read moves data).
ab_run() { # kind
	local variants
	read -r -a variants <<<"$AB_VARIANTS"
	local r i name h t j rw bs qd n=${#variants[@]}
	dd if=/dev/urandom of=/dev/ram0 bs=1M count="$NS_MIB" oflag=direct status=none ||
		error "filling /dev/ram0"
	for r in $(seq 1 "$AB_ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			IFS=: read -r name h t <<<"${variants[$(((i + r - 1) % n))]}"
			log "=== A/B $1 round $r: $name (host $h, target $t)"
			if target_up "$t" "$1" && host_up "$h" "$1"; then
				for j in $AB_JOBS; do
					IFS=: read -r rw bs qd <<<"$j"
					ab_job "$NSDEV" "$NS_MIB" "$1" "$r" "$name" \
						"$rw" "$bs" "$qd" host="$h" target="$t"
				done
			fi
			[ "$AB_PROFILE" = 1 ] && ab_counts "$1 round $r $name"
			host_down "$h"
			target_down "$t"
			unload_mrcore "$1 A/B $name"
		done
	done
}

# The target guest's commands (two guests).
if [ "${1:-}" = ctl ]; then
	case "$2" in
	up) target_up "$3" "$4" ;;
	diag) wire_state ;;
	cut) wire_cut "$3" ;;
	down)
		target_down "$3"
		unload_mrcore "$4 target $3 (target guest), after disconnect"
		;;
	*) error "ctl: unknown command $2"; exit 2 ;;
	esac
	exit
fi

mounts
# nvme-cli reads the host's NQN and ID from here.
mkdir -p /etc/nvme
nvme gen-hostnqn >/etc/nvme/hostnqn
cat /proc/sys/kernel/random/uuid >/etc/nvme/hostid
# Each first run of a binary reads it and its libraries over 9p: once.
nvme_v=$(nvme version | head -1) fio_v=$(fio --version)
log "kernel $(uname -r); nvme-cli $nvme_v; $fio_v"
emit kind=start kernel="$(uname -r)" nvme_cli="$nvme_v" fio="$fio_v"
ip link set lo up
case "$ROLE" in
one) setup_one ;;
host) setup_wire 1 2 || error "wire setup failed" ;;
target) setup_wire 2 1 || error "wire setup failed" ;;
esac
rdma link show

kmemleak_clear
[ "$ROLE" = host ] || modprobe brd rd_nr=1 rd_size=$((NS_MIB * 1024)) || error "modprobe brd"

if [ "$ROLE" = target ]; then
	log "serving the host guest's commands on port $CTL_PORT"
	ctl_serve || error "the control service failed"
else
	for kind in $DEVICES; do
		if [ "${AB:-0}" = 1 ]; then
			ab_run "$kind"
			continue
		fi
		for p in $PAIRINGS; do
			pairing "$kind" "${p%%/*}" "${p#*/}"
		done
		case "$FAULTS$TOPOLOGY" in
		1one)
			fault_target_removal "$kind"
			fault_resp_post "$kind"
			;;
		resp_postone) fault_resp_post "$kind" ;;
		1two)
			for FAULT_PAIRING in $FAULT_PAIRINGS; do
				fault_link_down "$kind"
			done
			;;
		esac
		if [ "$TOPOLOGY" = one ]; then
			for h in $SECURITY; do
				security_keys "$kind" "$h"
			done
		fi
	done
	[ "$ROLE" = host ] && { ctl finish || error "target guest: finish"; }
fi

for m in nvme_fabrics nvme_core nvmet brd; do
	[ -e /sys/module/$m ] || continue
	rmmod $m || error "rmmod $m"
done
lsmod >$R/lsmod.txt
kmemleak_report
finish
