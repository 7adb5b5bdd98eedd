// GUIDs as Dataverse (SQL Server) orders them: SqlGuid.CompareTo compares the .NET byte array
// (ToByteArray: the first three groups little-endian) in the byte order 10-15, 8-9, 6-7, 4-5, 0-3.
// Sorting GUIDs as plain strings gives another order: a client that does so is caught here.
export const GUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ORDER = [10, 11, 12, 13, 14, 15, 8, 9, 6, 7, 4, 5, 0, 1, 2, 3];

function dotNetBytes(guid: string): number[] {
  const hex = guid.replace(/-/g, '').toLowerCase();
  const d = Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
  return [d[3]!, d[2]!, d[1]!, d[0]!, d[5]!, d[4]!, d[7]!, d[6]!, ...d.slice(8)];
}

export function compareGuids(a: string, b: string): number {
  const x = dotNetBytes(a);
  const y = dotNetBytes(b);
  for (const i of ORDER) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}
