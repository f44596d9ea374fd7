/**
 * WOFF 1.0 to the sfnt (TrueType/OpenType) file it wraps, each table inflated by node:zlib. fontkit
 * reads a WOFF file by inflating its tables in JavaScript on first use, which was a sixth of a
 * transparency report's build; the tables it reads from the sfnt are the same bytes, so the glyphs,
 * metrics and subsets it makes of them are too (a test compares the reports).
 */
import { inflateSync } from "node:zlib";

const WOFF_SIGNATURE = 0x774f4646; // "wOFF"
const WOFF_HEADER = 44;
const WOFF_ENTRY = 20;
const SFNT_HEADER = 12;
const SFNT_ENTRY = 16;

export function isWoff(bytes: Uint8Array): boolean {
  return (
    bytes.length >= WOFF_HEADER && Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32BE(0) === WOFF_SIGNATURE
  );
}

/** The sfnt inside a WOFF 1.0 file; throws on a file that is not one or whose tables do not inflate to their length. */
export function woffToSfnt(woff: Uint8Array): Uint8Array {
  const src = Buffer.from(woff.buffer, woff.byteOffset, woff.byteLength);
  if (!isWoff(src)) throw new Error("not a WOFF 1.0 file");
  const flavor = src.readUInt32BE(4);
  const numTables = src.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = WOFF_HEADER + i * WOFF_ENTRY;
    const tag = src.readUInt32BE(at);
    const offset = src.readUInt32BE(at + 4);
    const compLength = src.readUInt32BE(at + 8);
    const origLength = src.readUInt32BE(at + 12);
    const checksum = src.readUInt32BE(at + 16);
    const stored = src.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(stored) : stored;
    if (data.length !== origLength)
      throw new Error(`WOFF table ${tag.toString(16)}: ${data.length} bytes, not ${origLength}`);
    return { tag, checksum, data };
  });
  let size = SFNT_HEADER + numTables * SFNT_ENTRY;
  for (const t of tables) size += (t.data.length + 3) & ~3;
  const out = Buffer.alloc(size);
  // searchRange and its kin: the largest power of two not above numTables, as the sfnt spec says.
  let power = 1;
  let log = 0;
  while (power * 2 <= numTables) [power, log] = [power * 2, log + 1];
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  out.writeUInt16BE(power * 16, 6);
  out.writeUInt16BE(log, 8);
  out.writeUInt16BE(numTables * 16 - power * 16, 10);
  let offset = SFNT_HEADER + numTables * SFNT_ENTRY;
  tables.forEach((t, i) => {
    const at = SFNT_HEADER + i * SFNT_ENTRY;
    out.writeUInt32BE(t.tag, at);
    out.writeUInt32BE(t.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(t.data.length, at + 12);
    out.set(t.data, offset);
    offset += (t.data.length + 3) & ~3;
  });
  return out;
}
