import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--allow-natives-syntax');
// Compiled after the flag: V8's own "same hidden class" test.
const haveSameMap = vm.runInThisContext('(a, b) => %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/**
 * How many V8 hidden classes (maps) `objects` use between them. Objects a process makes by the
 * thousand should share a few: one each costs a map and a descriptor array apiece, hundreds of
 * bytes in old space (kept-objects.ts says which literals do that).
 */
export function hiddenClassCount(objects: readonly object[]): number {
  const seen: object[] = [];
  for (const object of objects) if (!seen.some((s) => haveSameMap(s, object))) seen.push(object);
  return seen.length;
}
