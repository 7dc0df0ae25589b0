import { describe, expect, it } from "vitest";
import {
  assignInOrder,
  type Cost,
  completeAssignment,
  type OrderedSlot,
} from "../../src/evaluate/ordered-assignment.js";

/** Every order-keeping assignment, tried one by one: the cheapest total. */
function cheapestByTrying(slots: readonly OrderedSlot[]): Cost {
  let best: Cost = [Number.POSITIVE_INFINITY, 0, 0];
  const visit = (index: number, after: number, total: Cost) => {
    if (index === slots.length) {
      if (isBelow(total, best)) best = total;
      return;
    }
    const slot = slots[index] as OrderedSlot;
    visit(index + 1, after, add(total, slot.unmatched));
    for (const { item, cost } of slot.candidates) {
      if (item > after) visit(index + 1, item, add(total, cost));
    }
  };
  visit(0, -1, [0, 0, 0]);
  return best;
}

function totalOf(slots: readonly OrderedSlot[], assigned: readonly number[]): Cost {
  return slots.reduce<Cost>(
    (total, slot, index) => {
      const item = assigned[index] as number;
      if (item < 0) return add(total, slot.unmatched);
      const candidate = slot.candidates.find((entry) => entry.item === item);
      if (!candidate) throw new Error(`slot ${index} took ${item}, not one of its candidates`);
      return add(total, candidate.cost);
    },
    [0, 0, 0],
  );
}

/** The most slots any assignment (in order or not) gives an item, tried one by one. */
function mostMatchedByTrying(slots: readonly OrderedSlot[]): number {
  const taken = new Set<number>();
  const visit = (index: number): number => {
    if (index === slots.length) return 0;
    let most = visit(index + 1);
    for (const { item } of (slots[index] as OrderedSlot).candidates) {
      if (taken.has(item)) continue;
      taken.add(item);
      most = Math.max(most, 1 + visit(index + 1));
      taken.delete(item);
    }
    return most;
  };
  return visit(0);
}

const add = (left: Cost, right: Cost): Cost => [left[0] + right[0], left[1] + right[1], left[2] + right[2]];
const isBelow = (left: Cost, right: Cost) =>
  left[0] !== right[0] ? left[0] < right[0] : left[1] !== right[1] ? left[1] < right[1] : left[2] < right[2];

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function randomFrom(seed: number) {
  let state = seed >>> 0;
  return (limit: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * limit);
  };
}

describe("assignInOrder", () => {
  it("finds the cheapest order-keeping assignment, as trying every one does", () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const random = randomFrom(seed);
      const itemCount = random(7);
      const slots: OrderedSlot[] = Array.from({ length: 1 + random(6) }, () => {
        // Windows that mostly move forward, sometimes wide or behind (nested, parallel calls).
        const start = random(itemCount + 1);
        const end = Math.min(itemCount, start + random(4));
        const candidates = [];
        for (let item = start; item < end; item += 1) {
          if (random(4) > 0) candidates.push({ item, cost: [0, random(2), random(5)] as Cost });
        }
        return { unmatched: [1 + random(2), 0, 0] as Cost, candidates };
      });
      const assigned = assignInOrder(slots, itemCount);
      const taken = assigned.filter((item) => item >= 0);
      expect(taken, `seed ${seed}: order kept, each item once`).toEqual([...taken].sort((a, b) => a - b));
      expect(new Set(taken).size, `seed ${seed}`).toBe(taken.length);
      expect(totalOf(slots, assigned), `seed ${seed}`).toEqual(cheapestByTrying(slots));
    }
  });

  it("then gives items to as many slots as any assignment can, across the order, taking none away", () => {
    for (let seed = 1; seed <= 400; seed += 1) {
      const random = randomFrom(seed);
      const itemCount = 1 + random(7);
      const slots: OrderedSlot[] = Array.from({ length: 1 + random(6) }, () => {
        // Any window: nested and parallel ones, whose best match crosses the order.
        const start = random(itemCount);
        const end = Math.min(itemCount, start + 1 + random(itemCount));
        const candidates = [];
        for (let item = start; item < end; item += 1) {
          if (random(3) > 0) candidates.push({ item, cost: [0, random(2), random(5)] as Cost });
        }
        return { unmatched: [1, 0, 0] as Cost, candidates };
      });
      const assigned = assignInOrder(slots, itemCount);
      const before = [...assigned];
      completeAssignment(
        slots,
        assigned,
        itemCount,
        slots.map((_, index) => index),
      );
      const taken = assigned.filter((item) => item >= 0);
      expect(new Set(taken).size, `seed ${seed}: each item once`).toBe(taken.length);
      assigned.forEach((item, index) => {
        if (item >= 0)
          expect(
            slots[index]?.candidates.some((entry) => entry.item === item),
            `seed ${seed}`,
          ).toBe(true);
        if ((before[index] as number) >= 0)
          expect(item, `seed ${seed}: slot ${index} kept an item`).toBeGreaterThanOrEqual(0);
      });
      expect(taken.length, `seed ${seed}`).toBe(mostMatchedByTrying(slots));
    }
  });

  it("leaves every slot unmatched when there are no items", () => {
    const slot: OrderedSlot = { unmatched: [1, 0, 0], candidates: [] };
    expect(assignInOrder([slot, slot], 0)).toEqual([-1, -1]);
  });

  it("gives a later slot the later item rather than letting an early slot take the nearer one", () => {
    // Slot 0 is nearer item 1 than its own item 0; slot 1 can only take item 1.
    const assigned = assignInOrder(
      [
        {
          unmatched: [1, 0, 0],
          candidates: [
            { item: 0, cost: [0, 0, 900] },
            { item: 1, cost: [0, 0, 10] },
          ],
        },
        { unmatched: [1, 0, 0], candidates: [{ item: 1, cost: [0, 0, 900] }] },
      ],
      2,
    );
    expect(assigned).toEqual([0, 1]);
  });
});
