#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make nfsrdma, in the guest: PID 1 of a guest whose root is the host's own
# Debian (scripts/guest-init.sh, mode rootfs), so mount.nfs, rpc.nfsd,
# rpc.mountd, exportfs, rpcbind, fio and bash are Debian's binaries,
# unmodified.  Reads /mrcore-out/config.sh (written by scripts/nfsrdma.sh)
# and, for each RDMA device kind, each pairing of client and server
# transports (stock = rpcrdma from the unpatched upstream files, mrcore =
# the converted ones, both built by scripts/ulp-ports.sh) and each NFS
# version:
#
#   1. the server: nfsd with its RDMA listener on port 20049, rpcbind and
#      rpc.mountd, exporting a tmpfs;
#   2. the client: mount -t nfs -o proto=rdma,port=20049,vers=V;
#   3. fio with crc32c verification on a file of the mount, one job per
#      shape (random writes, then the file read back and checked), with
#      O_DIRECT so that every I/O is an RPC whose data moves by RDMA;
#   4. a tree of files of unique bytes copied in, synced, the mount
#      dropped and mounted again, every file compared with its source;
#   5. umount, the server stopped, rpcrdma unloaded, rdma_mrcore's
#      counters checked (every map and DMA mapping undone) and unloaded.
#
# Then, per device kind, on the converted ends (FAULTS=1), a fault during
# a verifying fio job: the server restarted and WRs of both ends' chains
# refused by the core (one guest), the link down past the RPC retransmit
# timeout (two guests); and in one guest, for each
# variant of SECURITY, an attacker on the client's PD (security_keys).
#
# With AB=1 (make nfsrdma-ab) it runs the A/B instead (ab_run, below).
#
# Then every module goes, kmemleak scans, and the guest powers off.  Each
# step writes one JSON line to /mrcore-out/results.jsonl, judged with the
# console by scripts/nvmeof-report.py --ulp nfsrdma.  rpcrdma is one module
# (client and server): in one kernel both ends run the same variant.

# shellcheck source=/dev/null
. /mrcore-out/config.sh
ULP_TAG=nfsrdma-guest
# shellcheck source=scripts/lib/ulp-guest.sh
. "$(dirname "$0")/lib/ulp-guest.sh"

NFS_RDMA_PORT=20049
EXPORT=/srv/nfs
MNT=/mnt/nfs

# Two guests: the NFS client cannot choose its source address (rpcrdma
# resolves with none), so rdma_cm takes the RDMA device of the route's
# netdev; each device kind has eth0 to itself in turn (use_kind), and both
# ends' addresses are the wire's.  One guest: make nvmeof's veth pairs.
nfs_addr() { # kind side(0 server, 1 client)
	if [ "$TOPOLOGY" = two ]; then
		echo "203.0.113.$((2 - $2))"
	else
		addr_of "$1" "$2"
	fi
}
use_kind() { # kind: the only RDMA device on eth0 (two guests)
	local l
	for l in $(rdma link show | awk '{ print $2 }'); do
		rdma link delete "${l%/*}" || { error "rdma link delete ${l%/*}"; return 1; }
	done
	rdma link add "${1}0" type "$1" netdev eth0 ||
		{ error "rdma link add ${1}0 on eth0"; return 1; }
}

load_rpcrdma() { # variant
	local v
	if [ -e /sys/module/rpcrdma_"$1" ]; then
		return 0
	fi
	for v in stock mrcore; do
		[ -e /sys/module/rpcrdma_$v ] &&
			{ error "rpcrdma_$v is loaded where $1 is wanted"; return 1; }
	done
	[ "$1" = mrcore ] && { load_mrcore || return 1; }
	insmod "$PORTS/nfs/rpcrdma_$1.ko" || { error "insmod rpcrdma_$1"; return 1; }
}
unload_rpcrdma() { # variant
	[ -e /sys/module/rpcrdma_"$1" ] || return 0
	rmmod "rpcrdma_$1" || error "rmmod rpcrdma_$1"
}

# The kernel NFS server on a tmpfs, its RDMA listener on the address of the
# device kind (and TCP, which rpc.nfsd opens for the MOUNT side of NFSv3).
# A grace period of 10 s (the least nfsd takes) instead of 90: NFSv4 OPENs
# wait it out after each start.
server_up() { # variant kind
	load_rpcrdma "$1" || return 1
	modprobe nfsd || { error "modprobe nfsd"; return 1; }
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		{ error "mount nfsd"; return 1; }
	mkdir -p $EXPORT /var/lib/nfs/rpc_pipefs /run/rpcbind
	mountpoint -q $EXPORT || mount -t tmpfs -o size=1g tmpfs $EXPORT
	# fsid=0: the export is NFSv4's root too (the guest's / is an overlay,
	# which cannot be the pseudo root mountd would build above it).
	# EXPORT_OPTS: more options, with a leading comma (security_keys).
	echo "$EXPORT *(rw,no_root_squash,insecure,no_subtree_check,fsid=0${EXPORT_OPTS:-})" >/etc/exports
	pgrep -x rpcbind >/dev/null || rpcbind -w || { error "rpcbind"; return 1; }
	exportfs -ra || { error "exportfs"; return 1; }
	pgrep -x rpc.mountd >/dev/null || rpc.mountd ||
		{ error "rpc.mountd"; return 1; }
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	rpc.nfsd 4 || { error "rpc.nfsd"; return 1; }
	echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist ||
		{ error "nfsd: no rdma listener ($1 rpcrdma, $2)"; return 1; }
	log "server up: rpcrdma_$1 on $2, $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
}
server_down() { # variant
	if mountpoint -q /proc/fs/nfsd; then
		rpc.nfsd 0 || error "rpc.nfsd 0"
		exportfs -ua
	fi
	pkill -x rpc.mountd
	pkill -x rpcbind
	sleep 1
	mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
	mountpoint -q $EXPORT && umount $EXPORT
	[ -e /sys/module/nfsd ] && { rmmod nfsd || error "rmmod nfsd"; }
	unload_rpcrdma "$1"
}

client_mount() { # version kind
	local opts="vers=$1,proto=rdma,port=$NFS_RDMA_PORT${MOUNT_EXTRA:-}${MOUNT_OPTS:-}" path=/
	[ "$1" = 3 ] && opts="$opts,nolock" path=$EXPORT
	[ "$TOPOLOGY" = two ] && opts="$opts,clientaddr=$(nfs_addr "$2" 1)"
	mkdir -p $MNT
	if ! mount -t nfs -o "$opts" "$(nfs_addr "$2" 0):$path" $MNT \
		>/tmp/mount.log 2>&1; then
		cat /tmp/mount.log
		error "mount -o $opts ($2)"
		return 1
	fi
	grep " $MNT " /proc/mounts | grep -q "proto=rdma" ||
		{ error "$MNT is not on RDMA: $(grep " $MNT " /proc/mounts)"; return 1; }
	log "mounted: $(grep " $MNT " /proc/mounts)"
}
client_umount() {
	mountpoint -q $MNT || return 0
	umount $MNT || { error "umount $MNT"; umount -f $MNT; }
}

# One fio job on a file of the mount: random writes, then the file read
# back and checked against the crc32c of each block; fatal on the first
# mismatch.
run_job() { # kind client server version bs iodepth MiB
	local name="$5-qd$6" json=$R/fio-$1-$2-$3-v$4-$5-qd$6.json
	log "fio $name: $7 MiB on NFSv$4"
	fio --name="$name" --filename="$MNT/fio-$5-qd$6" --direct=1 \
		--ioengine=libaio --rw=randwrite --bs="$5" --iodepth="$6" \
		--size="$7M" --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=json --output="$json" >/tmp/fio.err 2>&1
	local rc=$?
	local errs
	errs=$(grep -c -i 'verify' /tmp/fio.err)
	[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
	rm -f "$MNT/fio-$5-qd$6"
	emit kind=fio device="$1" topology="$TOPOLOGY" client="$2" server="$3" \
		version="$4" job="$name" rc=$rc verify_lines="$errs" \
		fio_json="$(basename "$json")"
}

# A tree of files of every size class (empty, a byte, around a page, a
# chunk, a megabyte), bytes unique per position in each file, copied into
# the mount, synced; the mount dropped (nothing of the client's cache
# left) and mounted again, every file compared with its source.
make_tree() { # prints "files bytes"
	[ -s /tmp/tree.count ] && { cat /tmp/tree.count; return 0; }
	rm -rf /tmp/tree
	python3 - /tmp/tree "$TREE_MIB" <<'EOF'
import hashlib, os, sys
top, mib = sys.argv[1], int(sys.argv[2])
sizes = [0, 1, 511, 4095, 4096, 4097, 8191, 65536, 65537, 131071,
         1048575, 1048576, 1048577]
total, i = 0, 0
while total < mib << 20:
    size = sizes[i % len(sizes)]
    d = os.path.join(top, 'd%02d' % (i % 7))
    os.makedirs(d, exist_ok=True)
    out, ctr = bytearray(), 0
    while len(out) < size:
        out += hashlib.sha256(b'%d:%d' % (i, ctr)).digest()
        ctr += 1
    with open(os.path.join(d, 'f%04d' % i), 'wb') as f:
        f.write(out[:size])
    total += size
    i += 1
print(i, total)
EOF
}
run_tree() { # kind client server version
	local rc=0 files bytes bad=0 compared=0 f
	make_tree >/tmp/tree.new || { error "make_tree"; return 1; }
	mv /tmp/tree.new /tmp/tree.count
	read -r files bytes </tmp/tree.count
	log "tree: $files files, $bytes bytes, on NFSv$4"
	cp -a /tmp/tree $MNT/tree && sync || rc=1
	client_umount
	client_mount "$4" "$1" || rc=1
	if [ $rc = 0 ]; then
		# (no process substitution: the guest's /dev has no fd/)
		(cd /tmp/tree && find . -type f) >/tmp/tree.files
		while read -r f; do
			compared=$((compared + 1))
			cmp -s "/tmp/tree/$f" "$MNT/tree/$f" ||
				{ bad=$((bad + 1)); log "tree: $f differs"; }
		done </tmp/tree.files
		# Every file of the source compared, and no other on the mount.
		[ "$compared" = "$files" ] ||
			{ bad=$((bad + 1)); log "tree: $compared of $files files compared"; }
		[ "$(cd $MNT/tree && find . -type f | wc -l)" = "$files" ] ||
			{ bad=$((bad + 1)); log "tree: not $files files on the mount"; }
		rm -rf $MNT/tree
	fi
	emit kind=tree device="$1" topology="$TOPOLOGY" client="$2" server="$3" \
		version="$4" job=tree rc=$rc files="$files" bytes="$bytes" \
		verify_errors=$bad
}

pairing() { # kind client server
	local ok=1 v j bs qd mib
	log "=== $1: client $2, server $3 ($TOPOLOGY)"
	if [ "$TOPOLOGY" = two ]; then
		use_kind "$1" || ok=0
		ctl up "$3" "$1" || { error "server guest: up $3 $1"; ok=0; }
	else
		server_up "$3" "$1" || ok=0
	fi
	[ $ok = 1 ] && [ "$TOPOLOGY" = two ] && { load_rpcrdma "$2" || ok=0; }
	if [ $ok = 1 ]; then
		for v in $VERSIONS; do
			client_mount "$v" "$1" || continue
			for j in $JOBS; do
				IFS=: read -r bs qd mib <<<"$j"
				run_job "$1" "$2" "$3" "$v" "$bs" "$qd" "$mib"
			done
			[ "$TREE_MIB" -gt 0 ] && run_tree "$1" "$2" "$3" "$v"
			client_umount
		done
	fi
	if [ "$TOPOLOGY" = two ]; then
		unload_rpcrdma "$2"
		ctl down "$3" "$1" || error "server guest: down $3 $1"
	else
		server_down "$3"
	fi
	unload_mrcore "$1 client $2 server $3, after umount"
}

# The connections the mount's transport made so far (the "xprt: rdma"
# line of /proc/self/mountstats: port, bind count, connect count, ...).
connects() {
	awk -v m=" $MNT " 'index($0, "mounted on" m) { on = 1 }
		on && $1 == "xprt:" && $2 == "rdma" { print $5; exit }' \
		/proc/self/mountstats
}

# fault_run KIND NAME: a verifying fio job on the mount in the background
# (128 KiB random writes at iodepth 16, FAULT_MIB, then read back), for
# the fault to strike; fpid is its PID.
fault_fio() { # kind name
	fio --name="$2" --filename="$MNT/fault-$2" --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=128k --iodepth=16 \
		--size="${FAULT_MIB:-16}M" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=json \
		--output="$R/fio-fault-$2-$1.json" >/tmp/fio.err 2>&1 &
	fpid=$!
}
# What the RPC client's transports and tasks are doing, each minute of a
# wait (sunrpc's debugfs: the transport's state bits, who holds it, the
# tasks queued), besides the wire's state.  The debugfs files exist only
# with CONFIG_SUNRPC_DEBUG (kunit/test-kernel.config sets it).
nfs_state() {
	local f
	wire_state
	for f in /sys/kernel/debug/sunrpc/rpc_xprt/*/info \
		/sys/kernel/debug/sunrpc/rpc_clnt/*/tasks; do
		[ -r "$f" ] && log "sunrpc ($ROLE): $f: $(tr '\n' ';' <"$f")"
	done
	return 0
}

# With FAULT_TRACE=1, a fault's events, from before its fio job to its
# end: rpcrdma's client and server, sunrpc's transport, rdma_mrcore's
# I/Os (what told a lost completion from a lost wake-up).
fault_trace_start() {
	local T=/sys/kernel/tracing e
	[ "${FAULT_TRACE:-0}" = 1 ] || return 0
	[ -e $T/trace ] || mount -t tracefs tracefs $T
	echo 32768 >$T/buffer_size_kb
	echo >$T/trace
	for e in $T/events/rdma_mrcore/mrcore_io_* $T/events/rpcrdma/svcrdma_* \
		$T/events/rpcrdma/xprtrdma_* $T/events/sunrpc/xprt_*; do
		[ -e "$e/enable" ] && echo 1 >"$e/enable"
	done
	echo 1 >$T/tracing_on
}
fault_trace_save() { # fault kind
	local T=/sys/kernel/tracing
	[ "${FAULT_TRACE:-0}" = 1 ] || return 0
	echo 0 >$T/tracing_on
	cp $T/trace "$R/trace-$1-$2.txt"
	echo 0 >$T/events/enable
}

# fault_end KIND NAME C0: fio's end (bounded), its status and the
# reconnections since C0 into rc and reconn; ok and why updated.
fault_end() { # kind name connects-before
	await $fpid 900 nfs_state
	rc=$?
	[ $rc = 124 ] && { kill -9 $fpid; rc=137; }
	[ -s /tmp/fio.err ] && sed 's/^/fio: /' /tmp/fio.err
	reconn=$(($(connects) - $3))
	[ "$rc" = 0 ] || { ok=0; why="$why; fio exited $rc"; }
	[ "$reconn" -ge 1 ] || { ok=0; why="$why; the transport never reconnected"; }
	rm -f "$MNT/fault-$2"
}

# The link down past the RPC retransmit timeout while fio verifies (two
# guests): the mount's timeo is 10 s, the link is down for LINKDOWN_SECS
# (30); on siw the client guest's eth0 goes down, on rxe the wire is cut
# (as make nvmeof does).  The client must reconnect (mountstats' connect
# count), fio's verification pass, and the counters balance.
fault_nfs_link() { # kind
	local ok=1 why= rc reconn c0 how=down secs=${LINKDOWN_SECS:-30}
	[ "$1" = rxe ] && how=cut
	log "=== fault: $1: link $how $secs s during fio (NFSv4.2, timeo 10 s)"
	use_kind "$1" || ok=0
	ctl up mrcore "$1" || { ok=0; why="server guest: up"; }
	MOUNT_OPTS=",timeo=100,retrans=2"
	[ $ok = 1 ] && { load_rpcrdma mrcore && client_mount 4.2 "$1" ||
		{ ok=0; why="mount"; }; }
	MOUNT_OPTS=
	if [ $ok = 1 ]; then
		c0=$(connects)
		fault_trace_start
		fault_fio "$1" link
		sleep 3
		if [ $how = cut ]; then
			ctl cut "$secs" || { ok=0; why="server guest: cut"; }
			wire_cut "$secs"
			sleep "$((secs + 2))"
			while tc qdisc show dev eth0 | grep -q netem; do sleep 1; done
		else
			ip link set eth0 down
			log "eth0 down"
			sleep "$secs"
			ip link set eth0 up
			log "eth0 up"
		fi
		fault_end "$1" link "$c0"
		fault_trace_save link_down "$1"
	fi
	client_umount
	unload_rpcrdma mrcore
	ctl down mrcore "$1" || { ok=0; why="$why; server guest: down"; }
	counters_zero "$1 fault link down" || { ok=0; why="$why; counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || ok=0; }
	emit kind=fault fault=link_down device="$1" topology="$TOPOLOGY" \
		how=$how ok=$ok why="${why#; }" fio_rc="${rc:-none}" \
		reconnects="${reconn:-0}"
}

# The server restarted while fio verifies (one guest, NFSv4.2): nfsd
# stopped and started again, its RDMA listener back; the client reconnects
# and reclaims its state in the new grace period.
fault_nfs_restart() { # kind
	local ok=1 why= rc reconn c0
	log "=== fault: $1: the server restarted during fio (NFSv4.2)"
	server_up mrcore "$1" || { ok=0; why="server up"; }
	[ $ok = 1 ] && { client_mount 4.2 "$1" || { ok=0; why="mount"; }; }
	if [ $ok = 1 ]; then
		c0=$(connects)
		fault_trace_start
		fault_fio "$1" restart
		sleep 5
		rpc.nfsd 0 || { ok=0; why="rpc.nfsd 0"; }
		log "nfsd stopped"
		sleep 5
		rpc.nfsd 4 && echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist ||
			{ ok=0; why="$why; nfsd restart"; }
		log "nfsd started: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
		fault_end "$1" restart "$c0"
		fault_trace_save server_restart "$1"
	fi
	client_umount
	server_down mrcore
	counters_zero "$1 fault server restart" || { ok=0; why="$why; counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || ok=0; }
	emit kind=fault fault=server_restart device="$1" topology="$TOPOLOGY" \
		ok=$ok why="${why#; }" fio_rc="${rc:-none}" reconnects="${reconn:-0}"
}

# WRs refused while fio verifies (one guest, NFSv4.2; rpcrdma is one
# module, so that the client's registrations and Calls and the server's
# chunk READs, WRITEs and replies all post through the core): the core's
# post_wr fault refuses 4 WRs after 200 pass, each cutting the chain being
# posted, whole or after some of its WRs.  The side that posted drains
# its send queue (svcrdma one nfsd thread at a time) and drops the
# connection; the client reconnects and sends its RPCs again.  It passes
# if fio verified every block, the fault refused 4 WRs, the transport
# reconnected and the counters balance.
fault_nfs_post() { # kind
	local ok=1 why= rc reconn c0 hits=0 f=/sys/kernel/debug/rdma_mrcore/fault/post_wr
	log "=== fault: $1: WRs of the client's and the server's chains refused (NFSv4.2)"
	server_up mrcore "$1" || { ok=0; why="server up"; }
	[ $ok = 1 ] && { client_mount 4.2 "$1" || { ok=0; why="mount"; }; }
	if [ $ok = 1 ]; then
		c0=$(connects)
		echo "200 4" >$f || { ok=0; why="arming post_wr"; }
		fault_trace_start
		fault_fio "$1" post
		fault_end "$1" post "$c0"
		fault_trace_save post_wr "$1"
		read -r _ _ hits <$f
		echo "0 0" >$f
		[ "$hits" = 4 ] || { ok=0; why="$why; post_wr refused $hits WRs, not 4"; }
	fi
	client_umount
	server_down mrcore
	counters_zero "$1 fault post_wr" || { ok=0; why="$why; counters unbalanced"; }
	[ -e /sys/module/rdma_mrcore ] && { rmmod rdma_mrcore || ok=0; }
	emit kind=fault fault=post_wr device="$1" topology="$TOPOLOGY" \
		ok=$ok why="${why#; }" fio_rc="${rc:-none}" \
		refused="$hits" reconnects="${reconn:-0}"
}

# An attacker on another connection of the NFS client's PD while fio runs
# (one kernel, both ends on rpcrdma VARIANT: ulp-ports/nfs/key_attack.c
# learns each key as the server parses the RPC's chunk lists and sees the
# client complete the RPC).  NFSv3: a READ's data then comes in a Write
# chunk (NFSv4.2's READ_PLUS replies through a Reply chunk).  The export
# is an ext4 on a null_blk device that completes every I/O 200 ms late,
# exported sync and without readahead, so that an RPC stays in flight: a
# client WRITE (O_DIRECT, one FILE_SYNC RPC) waits for the device, and a
# READ too, the module dropping the server's cached pages of fio's file
# while it awaits one.  Per sample the access the key is for must be
# served while the RPC is in flight and refused right after the client
# completed it.  Rights, while in flight: a remote WRITE through a client
# WRITE's key (REMOTE_READ only, stock and converted) must be refused; a
# remote READ through a client READ's key (REMOTE_WRITE only) must be
# refused on rxe, and is served on siw, which answers a READ through any
# live key (core/quirks.c; Documentation/design.rst, "siw: READs through
# any key"): that driver defect is asserted there, not skipped.  fio
# verifies every byte meanwhile (the attacker's WRITEs put back what they
# read, or land in a READ's buffer before the server's data do).
# The security step's slow device: /dev/nullb0 (null_blk through
# configfs), 64 MiB in memory, each I/O completed 200 ms late, with an
# ext4 on it.  mkfs runs while the device is fast (at 200 ms an I/O it
# took a minute): the device is then powered off, made slow and powered
# on again; its memory stays with the configfs item meanwhile.
sec_nullb() { # up | down
	local d=/sys/kernel/config/nullb/nullb0
	if [ "$1" = up ]; then
		modprobe null_blk nr_devices=0 && mkdir $d &&
			echo 64 >$d/size && echo 4096 >$d/blocksize &&
			echo 1 >$d/memory_backed && echo 1 >$d/power &&
			mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
				/dev/nullb0 &&
			echo 0 >$d/power && echo 2 >$d/irqmode &&
			echo 200000000 >$d/completion_nsec && echo 1 >$d/power
		return
	fi
	[ -d $d ] && rmdir $d
	[ -e /sys/module/null_blk ] && { rmmod null_blk || error "rmmod null_blk"; }
	return 0
}

security_keys() { # kind variant
	local ok=1 why= sum n=${SEC_SAMPLES:-4} runs fails expect
	local f_samples f_live f_dead f_wt f_ws f_rt f_rs
	log "=== security: $1: an attacker on the PD of the $2 client (NFSv3)"
	expect=refused
	[ "$1" = siw ] && expect=served
	# (mkfs initialises the inode tables and journal whole: no lazy
	# initialisation writing behind the samples)
	sec_nullb up || { ok=0; why="ext4 on null_blk"; }
	# No readahead: a READ brings in its own pages only, from the device.
	[ $ok = 1 ] && { echo 0 >/sys/block/nullb0/queue/read_ahead_kb &&
		mkdir -p $EXPORT && mount -t ext4 /dev/nullb0 $EXPORT ||
		{ ok=0; why="ext4 on null_blk"; }; }
	[ $ok = 1 ] && { EXPORT_OPTS=,sync server_up "$2" "$1" || { ok=0; why="server"; }; }
	[ $ok = 1 ] && { client_mount 3 "$1" || { ok=0; why="mount"; }; }
	# The attacker's connections come from the e2e harness, on the core.
	[ $ok = 1 ] && { load_mrcore && insmod "$HARNESS_KO" || { ok=0; why="harness"; }; }
	if [ $ok = 1 ]; then
		# fio's file: $EXPORT/sec on the server (the module drops its
		# pages there).
		sec_attack "$1" "$2" "$MNT/sec" 1 "$PORTS/nfs/nfs_key_attack.ko" \
			rpcrdma="rpcrdma_$2" server_file="$EXPORT/sec"
		f_wt=$(sec_field rights_write_tries) f_ws=$(sec_field rights_write_served)
		f_rt=$(sec_field rights_read_tries) f_rs=$(sec_field rights_read_served)
		[ "$f_wt" = "$n" ] && [ "$f_ws" = 0 ] ||
			{ ok=0; why="$why; a client WRITE's key took a remote WRITE $f_ws of $f_wt times"; }
		if [ $expect = served ]; then
			log "security: $1: siw answers a remote READ through any live key, whatever it grants (core/quirks.c; Documentation/design.rst, \"siw: READs through any key\"): a client READ's key serves the attacker's READ there, asserted"
			[ "$f_rt" = "$n" ] && [ "$f_rs" = "$n" ] ||
				{ ok=0; why="$why; siw: a remote READ with a client READ's key served $f_rs of $f_rt times, not every time (the driver's defect)"; }
		else
			[ "$f_rt" = "$n" ] && [ "$f_rs" = 0 ] ||
				{ ok=0; why="$why; a client READ's key took a remote READ $f_rs of $f_rt times"; }
		fi
	fi
	[ -e /sys/module/mrcore_harness ] && rmmod mrcore_harness
	client_umount
	server_down "$2"
	sec_nullb down
	unload_mrcore "$1 security, $2 client and server"
	emit kind=security device="$1" topology="$TOPOLOGY" client="$2" server="$2" \
		version=3 ok=$ok why="${why#; }" samples="${f_samples:-0}" \
		live_served="${f_live:-0}" dead_refused="${f_dead:-0}" \
		rights_write_tries="${f_wt:-0}" rights_write_served="${f_ws:-0}" \
		rights_read_tries="${f_rt:-0}" rights_read_served="${f_rs:-0}" \
		rights_read_expect=$expect fio_runs="${runs:-0}" \
		fio_failed="${fails:-0}" log="security-$1-$2.log"
}

# A/B (make nfsrdma-ab, the bench kernel in icount mode, one kernel): per
# device, AB_ROUNDS rounds; each round brings up each variant in turn, the
# order rotated from round to round: stock client and server (A), the same
# again (A', whose ratio to A is the noise), and both ends converted (one
# rpcrdma module serves both).  Each variant runs the AB_JOBS fio shapes,
# time based, O_DIRECT (every I/O an RPC), on a file of AB_MIB written on
# the export's tmpfs beforehand, so that a read moves data.
ab_run() { # kind
	local variants r i name t j rw bs qd n
	read -r -a variants <<<"$AB_VARIANTS"
	n=${#variants[@]}
	for r in $(seq 1 "$AB_ROUNDS"); do
		for i in $(seq 0 $((n - 1))); do
			IFS=: read -r name t <<<"${variants[$(((i + r - 1) % n))]}"
			log "=== A/B $1 round $r: $name (client and server $t, NFSv$AB_VERSION)"
			if server_up "$t" "$1" &&
				dd if=/dev/urandom of=$EXPORT/ab bs=1M count="$AB_MIB" \
					status=none &&
				client_mount "$AB_VERSION" "$1"; then
				for j in $AB_JOBS; do
					IFS=: read -r rw bs qd <<<"$j"
					ab_job "$MNT/ab" "$AB_MIB" "$1" "$r" "$name" \
						"$rw" "$bs" "$qd" client="$t" server="$t"
				done
			else
				error "A/B $1 $name: set-up"
			fi
			[ "${AB_PROFILE:-0}" = 1 ] && ab_counts "$1 round $r $name"
			client_umount
			server_down "$t"
			unload_mrcore "$1 A/B $name"
		done
	done
}

# The server guest's commands (two guests).
if [ "${1:-}" = ctl ]; then
	case "$2" in
	up) use_kind "$4" && server_up "$3" "$4" ;;
	diag) wire_state ;;
	cut) wire_cut "$3" ;;
	down)
		server_down "$3"
		unload_mrcore "$4 server $3 (server guest), after umount"
		;;
	*) error "ctl: unknown command $2"; exit 2 ;;
	esac
	exit
fi

mounts
# Each first run of a binary reads it and its libraries over 9p: once.
nfs_v=$(mount.nfs -V 2>&1 | head -1) fio_v=$(fio --version)
log "kernel $(uname -r); $nfs_v; $fio_v"
emit kind=start kernel="$(uname -r)" nfs_utils="$nfs_v" fio="$fio_v"
ip link set lo up
case "$ROLE" in
one) setup_one ;;
client | server)
	n=1
	[ "$ROLE" = server ] && n=2
	ip link set eth0 up && ip addr add "203.0.113.$n/24" dev eth0 ||
		error "wire setup failed"
	;;
esac
rdma link show
kmemleak_clear

if [ "$ROLE" = server ]; then
	log "serving the client guest's commands on port $CTL_PORT"
	ctl_serve || error "the control service failed"
else
	for kind in $DEVICES; do
		if [ "${AB:-0}" = 1 ]; then
			ab_run "$kind"
			continue
		fi
		for p in $PAIRINGS; do
			c=${p%%/*} s=${p#*/}
			if [ "$TOPOLOGY" = one ] && [ "$c" != "$s" ]; then
				log "$kind: client $c, server $s: two kernels only (rpcrdma is one module)"
				continue
			fi
			pairing "$kind" "$c" "$s"
		done
		case "$FAULTS$TOPOLOGY" in
		1one)
			fault_nfs_restart "$kind"
			fault_nfs_post "$kind"
			;;
		post_wrone) fault_nfs_post "$kind" ;;
		restartone) fault_nfs_restart "$kind" ;;
		linktwo) fault_nfs_link "$kind" ;;
		1two) fault_nfs_link "$kind" ;;
		esac
		if [ "$TOPOLOGY" = one ]; then
			for c in ${SECURITY:-}; do
				security_keys "$kind" "$c"
			done
		fi
	done
	[ "$ROLE" = client ] && { ctl finish || error "server guest: finish"; }
fi

lsmod >$R/lsmod.txt
kmemleak_report
finish
