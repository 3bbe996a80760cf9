// Writes a small WARC/1.1 file with warcio.js, an independent writer, for
// t/warc-files.t to read with wa's reader: a warcinfo, a response, a
// resource of the bytes 0 to 255 and an empty metadata record, each with
// warcio's own "sha1:" base32 block digest; one gzip member per record
// when the name ends in ".gz".
//   node write-warc.mjs OUT
import { writeFileSync } from "node:fs";
import { WARCRecord, WARCSerializer } from "warcio";

const out = process.argv[2];
const gzip = out.endsWith(".gz");
const warcVersion = "WARC/1.1";
const opts = { gzip, digest: { algo: "sha-1", prefix: "sha1:", base32: true } };

async function* bytes(b) {
  yield b;
}

const records = [
  await WARCRecord.createWARCInfo({ filename: out.replace(/.*\//, ""), warcVersion },
    { software: "warcio.js" }),
  await WARCRecord.create({
    url: "http://127.0.0.1:8080/page", date: "2023-11-14T22:13:20Z", type: "response",
    warcVersion, httpHeaders: { "Content-Type": "text/html" },
  }, bytes(new TextEncoder().encode("<p>hello</p>\r\n\r\n"))),
  await WARCRecord.create({
    url: "http://127.0.0.1:8080/bytes", date: "2023-11-14T22:13:21Z", type: "resource",
    warcVersion, warcHeaders: { "Content-Type": "application/octet-stream" },
  }, bytes(Uint8Array.from({ length: 256 }, (_, i) => i))),
  await WARCRecord.create({
    url: "http://127.0.0.1:8080/empty", date: "2023-11-14T22:13:22Z", type: "metadata",
    warcVersion,
  }, bytes(new Uint8Array(0))),
];
const parts = [];
for (const r of records)
  parts.push(await WARCSerializer.serialize(r, opts));
writeFileSync(out, Buffer.concat(parts));
