/**
 * The cheapest assignment of time-ordered items to time-ordered slots that keeps their order (slot
 * i before slot j takes an earlier item), each slot taking at most one of its candidates and each
 * item going to at most one slot. invocations.ts uses it to give the shim's records to the
 * invocations the agent's tool calls typed: jointly, so that one call's choice cannot take the
 * record a neighbour needed.
 *
 * A dynamic program over slots: f(j) is the cheapest cost of the slots seen so far using only items
 * before j. A slot leaves every f(j) unmatched (its cost added to all of them at once, as an
 * offset) unless taking one of its candidates k < j is cheaper. Only f(j) from the slot's first
 * candidate on can change, and all f(j) past every candidate seen so far are one shared value, so a
 * slot costs the span from its first candidate to the furthest candidate yet: about linear in
 * slots × candidates when the candidates' ranges move forward with the slots, as time windows do
 * (a window without an end, a call that never got its result, makes the spans after it longer).
 * completeAssignment then matches, across the order, what keeping it could not.
 */

/** A cost, compared lexicographically: the first component decides, then the second, then the third. */
export type Cost = readonly [number, number, number];

export interface OrderedSlot {
  /** What leaving the slot without an item costs. */
  unmatched: Cost;
  /** The items the slot may take, by ascending index, and the cost of taking each. */
  candidates: readonly { item: number; cost: Cost }[];
}

/** The choices one slot made: the item it took for each f(j), j from `from` to `to`, or -1. */
interface SlotChoices {
  from: number;
  to: number;
  choices: Int32Array;
  /** Its choice for every f(j) past `to`. */
  beyond: number;
}

/**
 * For each slot, the index of the item it takes, or -1: an assignment of least total cost. Each
 * slot's candidates are ascending and distinct.
 */
export function assignInOrder(slots: readonly OrderedSlot[], itemCount: number): number[] {
  // f(j) for j ≤ `filled` is kept in f0, f1, f2 (the cost's parts), less the unmatched costs of
  // the slots so far (every f pays them, so they are left out of all); past `filled`, every f(j)
  // is `beyond`.
  const f0 = new Float64Array(itemCount + 1);
  const f1 = new Float64Array(itemCount + 1);
  const f2 = new Float64Array(itemCount + 1);
  const beyond = [0, 0, 0];
  let filled = -1;
  const history: SlotChoices[] = [];
  for (const { unmatched, candidates } of slots) {
    const first = candidates[0]?.item;
    const last = candidates[candidates.length - 1]?.item;
    if (first === undefined || last === undefined) {
      history.push({ from: itemCount + 1, to: itemCount, choices: new Int32Array(0), beyond: -1 });
      continue;
    }
    while (filled < last + 1) {
      filled += 1;
      f0[filled] = beyond[0] as number;
      f1[filled] = beyond[1] as number;
      f2[filled] = beyond[2] as number;
    }
    const [u0, u1, u2] = unmatched;
    // The cheapest candidate k taken so far: f(k) + cost(k), less this slot's unmatched cost (now
    // left out of every f). On a tie, the later item.
    let best0 = Number.POSITIVE_INFINITY;
    let best1 = 0;
    let best2 = 0;
    let bestItem = -1;
    const from = first + 1;
    const choices = new Int32Array(filled - from + 1).fill(-1);
    // f(j − 1) as it was before this slot: f(first) is untouched, each later one read before it changes.
    let before0 = f0[first] as number;
    let before1 = f1[first] as number;
    let before2 = f2[first] as number;
    let next = 0;
    for (let j = from; j <= filled; j += 1) {
      const candidate = candidates[next];
      if (candidate?.item === j - 1) {
        const [c0, c1, c2] = candidate.cost;
        const take0 = before0 + c0 - u0;
        const take1 = before1 + c1 - u1;
        const take2 = before2 + c2 - u2;
        if (!isLess(best0, best1, best2, take0, take1, take2)) {
          best0 = take0;
          best1 = take1;
          best2 = take2;
          bestItem = candidate.item;
        }
        next += 1;
      }
      before0 = f0[j] as number;
      before1 = f1[j] as number;
      before2 = f2[j] as number;
      if (bestItem >= 0 && isLess(best0, best1, best2, before0, before1, before2)) {
        f0[j] = best0;
        f1[j] = best1;
        f2[j] = best2;
        choices[j - from] = bestItem;
      }
    }
    let beyondChoice = -1;
    if (isLess(best0, best1, best2, beyond[0] as number, beyond[1] as number, beyond[2] as number)) {
      beyond.splice(0, 3, best0, best1, best2);
      beyondChoice = bestItem;
    }
    history.push({ from, to: filled, choices, beyond: beyondChoice });
  }
  // Back from f(itemCount): each slot's choice there, then f before the item it took.
  const assigned = slots.map(() => -1);
  let state = itemCount;
  for (let index = slots.length - 1; index >= 0; index -= 1) {
    const { from, to, choices, beyond: beyondChoice } = history[index] as SlotChoices;
    const item = state > to ? beyondChoice : state >= from ? (choices[state - from] as number) : -1;
    if (item < 0) continue;
    assigned[index] = item;
    state = item;
  }
  return assigned;
}

/** Whether cost (a0, a1, a2) is below (b0, b1, b2), part by part. */
function isLess(a0: number, a1: number, a2: number, b0: number, b1: number, b2: number): boolean {
  return a0 !== b0 ? a0 < b0 : a1 !== b1 ? a1 < b1 : a2 < b2;
}

/**
 * Gives a slot left without an item one, wherever an augmenting path exists: a chain of slots that
 * each move to another of their candidates, ending at an item no slot took (the shortest chain,
 * found breadth first). No slot loses its item. After it, no more slots can be given an item at
 * all, crossing the order or not: what keeping order cannot match (calls run in parallel whose
 * windows nest, the outer one's command run last) is matched. Slots are tried in `priority` order;
 * `assigned` (from assignInOrder) is changed in place.
 *
 * The items a failed try reached are all taken, by slots whose candidates are all among them, so
 * no later chain can pass through them: they are not searched again. So the failed tries together
 * cost at most all slots' candidates, and each successful one (a slot given an item) as much.
 */
export function completeAssignment(
  slots: readonly OrderedSlot[],
  assigned: number[],
  itemCount: number,
  priority: readonly number[],
): void {
  const owner = new Int32Array(itemCount).fill(-1);
  assigned.forEach((item, slot) => {
    if (item >= 0) owner[item] = slot;
  });
  // Per try: the slot each item was reached from; `seen` says in which try (or DEAD).
  const reachedFrom = new Int32Array(itemCount);
  const seen = new Int32Array(itemCount).fill(-1);
  const DEAD = -2;
  for (const start of priority) {
    if ((assigned[start] as number) >= 0 || (slots[start] as OrderedSlot).candidates.length === 0) continue;
    const queue = [start];
    const reached: number[] = [];
    let free = -1;
    for (let head = 0; head < queue.length && free < 0; head += 1) {
      const slot = queue[head] as number;
      for (const { item } of (slots[slot] as OrderedSlot).candidates) {
        if (seen[item] === start || seen[item] === DEAD) continue;
        seen[item] = start;
        reachedFrom[item] = slot;
        reached.push(item);
        const holder = owner[item] as number;
        if (holder < 0) {
          free = item;
          break;
        }
        queue.push(holder);
      }
    }
    if (free < 0) {
      for (const item of reached) seen[item] = DEAD;
      continue;
    }
    // Back along the chain: each slot takes the item it reached, giving up the one it held (the
    // starting slot held none, which ends the walk).
    for (let item = free; item >= 0; ) {
      const slot = reachedFrom[item] as number;
      const held = assigned[slot] as number;
      assigned[slot] = item;
      owner[item] = slot;
      item = held;
    }
  }
}
