/**
 * Stable integer symbol ids for venues that number none (OANDA v20, MetaApi): each name gets a
 * 31-bit FNV-1a hash of itself, the same in every process and session; the rare name whose hash
 * another took (names in sorted order) takes the next free number. Never 0.
 */
export function stableSymbolIds(names: readonly string[]): number[] {
  const taken = new Map<string, number>();
  const used = new Set<number>();
  for (const name of [...names].sort()) {
    let id = fnv1a31(name);
    while (used.has(id)) id = (id % 0x7fffffff) + 1;
    used.add(id);
    taken.set(name, id);
  }
  return names.map((name) => taken.get(name) as number);
}

function fnv1a31(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash & 0x7fffffff || 1;
}
