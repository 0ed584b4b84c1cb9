'use strict';
// Sends N messages with tags and keys through ali-ons and consumes them back with a push consumer,
// against the nameserver in NAMESRV_ADDR. Exits 0 when every message came back intact.
const { Producer, Consumer, Message } = require('ali-ons');

const namesrv = process.env.NAMESRV_ADDR;
const topic = process.env.TOPIC;
const n = Number(process.env.COUNT || 20);
const keysOf = m => (Array.isArray(m.keys) ? m.keys.join(' ') : String(m.keys));
const common = { httpclient: {}, accessKeyId: 'ak', accessKeySecret: 'sk', nameSrv: [ namesrv ] };

(async () => {
  const producer = new Producer(Object.assign({ producerGroup: 'ALIONS_PG' }, common));
  await producer.ready();
  const sent = new Map();
  for (let i = 0; i < n; i++) {
    const msg = new Message(topic, i % 2 ? 'TagB' : 'TagA', `ali-ons body ${i} ünïcødé`);
    msg.keys = [ `key-${i}` ];
    const r = await producer.send(msg);
    if (r.sendStatus !== 'SEND_OK') throw new Error(`send ${i}: ${r.sendStatus}`);
    sent.set(r.msgId, msg);
  }
  const consumer = new Consumer(Object.assign({ consumerGroup: 'ALIONS_CG', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, common));
  const got = new Map();
  const done = new Promise((resolve, reject) => {
    consumer.subscribe(topic, 'TagA || TagB', async msg => {
      const want = sent.get(msg.msgId);
      if (!want) return reject(new Error(`unknown msgId ${msg.msgId}`));
      if (msg.body.toString() !== want.body.toString() || msg.tags !== want.tags || keysOf(msg) !== keysOf(want)) {
        return reject(new Error(`message ${msg.msgId} changed: ${msg.tags} ${msg.keys} ${msg.body}`));
      }
      got.set(msg.msgId, true);
      if (got.size === n) resolve();
    });
  });
  await consumer.ready();
  const timer = setTimeout(() => { console.error(`timeout: received ${got.size} of ${n}`); process.exit(1); }, 60000);
  await done;
  clearTimeout(timer);
  console.log(`received ${got.size} of ${n}`);
  await consumer.close();
  await producer.close();
  process.exit(0);
})().catch(err => { console.error('FAILED', err); process.exit(1); });
