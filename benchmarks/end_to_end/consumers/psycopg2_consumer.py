# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
"""psycopg2's LogicalReplicationConnection as a consumer of the end-to-end benchmark.

psycopg2 is Debian's python3-psycopg2, unpacked by benchmarks/end_to_end/compare into an ignored
folder and put on PYTHONPATH; run this with Debian's /usr/bin/python3, which that build is for.

The loop is psycopg2's documented non-blocking one (read_message, then select on the cursor). It
looks at each pgoutput message's type byte only: it counts Inserts and Updates and, at each Commit
(or Stream Commit, with --streaming), acknowledges the commit's end position with send_feedback
(psycopg2 sends the feedback on its status interval, or at once when the server asks). It does not
decode column values.

It stops when a Commit ends at or past --end-lsn, or when nothing is pending and the server's
position (ReplicationCursor.wal_end, moved by keepalives) is at or past it. On exit it prints one
line: transactions=N rows=N acknowledged=X/Y.

Usage: python3 psycopg2_consumer.py --dsn DSN --slot S --publication PUB --end-lsn X/Y [--protocol N]
                                    [--streaming]
"""

import argparse
import select
import sys
import time

import psycopg2
import psycopg2.extras

INSERT = ord("I")
UPDATE = ord("U")
COMMIT = ord("C")
STREAM_COMMIT = ord("c")


def parse_lsn(text):
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def lsn_text(value):
    return "%X/%X" % (value >> 32, value & 0xFFFFFFFF)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--slot", required=True)
    parser.add_argument("--publication", required=True)
    parser.add_argument("--end-lsn", required=True)
    parser.add_argument("--protocol", default="1")
    parser.add_argument("--streaming", action="store_true", help="pgoutput streaming (protocol 2+)")
    args = parser.parse_args()
    end = parse_lsn(args.end_lsn)

    conn = psycopg2.connect(args.dsn, connection_factory=psycopg2.extras.LogicalReplicationConnection)
    cur = conn.cursor()
    options = {"proto_version": args.protocol, "publication_names": args.publication}
    if args.streaming:
        options["streaming"] = "on"
    cur.start_replication(slot_name=args.slot, decode=False, options=options)
    transactions = rows = acknowledged = 0
    while True:
        msg = cur.read_message()
        if msg is None:
            if cur.wal_end >= end:
                break
            select.select([cur], [], [], 1.0)
            continue
        payload = msg.payload
        kind = payload[0]
        if kind == INSERT or kind == UPDATE:  # streamed ones too: the same type byte, then an xid
            rows += 1
        elif kind == COMMIT or kind == STREAM_COMMIT:
            transactions += 1
            # Commit: type, flags (1 byte), commit LSN (8), end LSN (8), timestamp (8). Stream
            # Commit: the same after the type and an xid (4).
            at = 10 if kind == COMMIT else 14
            acknowledged = int.from_bytes(payload[at:at + 8], "big")
            cur.send_feedback(flush_lsn=acknowledged)
            if acknowledged >= end:
                break
    # Closing with data still unread makes a TCP server drop what it had not read yet, our last
    # feedback included. Ask for a reply and close once something arrived: the server reads its
    # input in order, so by then it has taken the feedback.
    cur.send_feedback(flush_lsn=acknowledged, reply=True, force=True)
    heard = cur.io_timestamp
    deadline = time.monotonic() + 5.0
    while cur.io_timestamp == heard and time.monotonic() < deadline:
        if cur.read_message() is None:
            select.select([cur], [], [], 0.1)
    conn.close()
    print("transactions=%d rows=%d acknowledged=%s" % (transactions, rows, lsn_text(acknowledged)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except psycopg2.Error as e:
        # The SQLSTATE only: a server message may quote a value.
        print("psycopg2_consumer.py: failed (%s)" % (e.pgcode or type(e).__name__), file=sys.stderr)
        sys.exit(1)
