// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The npm package pg-logical-replication as a consumer of the end-to-end benchmark. The package
// itself is not part of this repository: benchmarks/end_to_end/compare installs it into an ignored
// folder and passes that node_modules folder in REPLICANT_PEER_NODE_MODULES.
//
// Acknowledgement is manual, at each Commit, with the Commit's end position: the package's automatic
// mode acknowledges every message as soon as its 'data' event has been emitted, before the handler
// has done anything durable, which can lose data. The package decodes each row into a JavaScript
// object with typed values (its pgoutput parser runs the pg type parsers); this consumer counts the
// Inserts and Updates and adds their ids up so the harness can check what was delivered. The
// package (2.5.0) has no pgoutput streaming: it cannot ask for it, and its parser refuses the
// stream messages, so the harness leaves it out of the streamed workload.
//
// It stops when a Commit ends at or past --end-lsn, or when a keepalive reports the server's
// position at or past it (nothing published is left before it). On exit it prints one line:
// transactions=N rows=N int_sum=N acknowledged=X/Y.
//
// Usage: node pg_logical_replication.js --host H --port P --user U --database D --slot S
//                                       --publication PUB --end-lsn X/Y [--protocol 1|2]
'use strict';

const path = require('path');

const modules = process.env.REPLICANT_PEER_NODE_MODULES;
if (!modules) {
  process.stderr.write('pg_logical_replication.js: REPLICANT_PEER_NODE_MODULES is not set\n');
  process.exit(2);
}
const { LogicalReplicationService, PgoutputPlugin } = require(path.join(modules, 'pg-logical-replication'));

function parseArgs(argv) {
  const o = { protocol: '1' };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (!name.startsWith('--') || value === undefined) {
      process.stderr.write('pg_logical_replication.js: malformed arguments\n');
      process.exit(2);
    }
    o[name.slice(2).replace(/-/g, '_')] = value;
  }
  for (const required of ['host', 'port', 'user', 'database', 'slot', 'publication', 'end_lsn']) {
    if (o[required] === undefined) {
      process.stderr.write(`pg_logical_replication.js: --${required.replace(/_/g, '-')} is required\n`);
      process.exit(2);
    }
  }
  return o;
}

// 'X/Y' -> BigInt, so positions compare as numbers.
function lsn(text) {
  const [hi, lo] = text.split('/');
  return (BigInt('0x' + hi) << 32n) | BigInt('0x' + lo);
}

function lsnText(value) {
  return `${(value >> 32n).toString(16).toUpperCase()}/${(value & 0xffffffffn).toString(16).toUpperCase()}`;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const end = lsn(o.end_lsn);
  const service = new LogicalReplicationService(
    { host: o.host, port: Number(o.port), user: o.user, database: o.database },
    { acknowledge: { auto: false, timeoutSeconds: 0 } },
  );
  const plugin = new PgoutputPlugin({ protoVersion: Number(o.protocol), publicationNames: [o.publication] });

  let transactions = 0;
  let rows = 0;
  let intSum = 0n;
  let acknowledged = 0n;
  let acknowledgedText = '0/0';
  let closing = false;
  let finished = false;

  const finish = async (status) => {
    if (finished) return;
    finished = true;
    await service.stop();
    process.stdout.write(
      `transactions=${transactions} rows=${rows} int_sum=${intSum} acknowledged=${lsnText(acknowledged)}\n`,
    );
    process.exit(status);
  };
  // The package has no clean end of the copy (CopyDone): it closes the connection. Over TCP, a close
  // with data still unread makes the server drop what it had not read yet, our last
  // acknowledgements included. So ask for a reply to the last acknowledgement, and close once it
  // came: the server reads its input in order, so by then it has taken every acknowledgement.
  const close = () => {
    if (closing) return;
    closing = true;
    service.acknowledge(acknowledgedText, true);
    setTimeout(() => finish(0), 5000).unref();
  };

  service.on('data', (_at, message) => {
    switch (message.tag) {
      case 'insert':
      case 'update':
        rows += 1;
        intSum += BigInt(message.new.id);
        break;
      case 'commit': {
        transactions += 1;
        // The transaction is "persisted" (there is nothing to persist): acknowledge its end.
        acknowledgedText = message.commitEndLsn;
        acknowledged = lsn(acknowledgedText);
        service.acknowledge(acknowledgedText);
        if (acknowledged >= end) close();
        break;
      }
      default:
        break;
    }
  });
  service.on('heartbeat', (at, _time, shouldRespond) => {
    if (closing) {
      finish(0);
    } else if (lsn(at) >= end) {
      close();
    } else if (shouldRespond) {
      service.acknowledge(acknowledgedText);
    }
  });
  service.on('error', (e) => {
    process.stderr.write(`pg_logical_replication.js: ${e && e.code ? e.code : 'error'}\n`);
    finish(1);
  });
  await service.subscribe(plugin, o.slot);
}

main().catch((e) => {
  process.stderr.write(`pg_logical_replication.js: failed (${e && e.code ? e.code : 'error'})\n`);
  process.exit(1);
});
