// Go's sort.Sort (pattern-defeating quicksort, Go 1.19 and later), over Less and Swap by index.
// sort.Sort is not stable: elements that compare equal end up in an order that depends on the
// algorithm's exact steps, and `kubectl get --sort-by` shows that order (events with the same
// second, pods on the same node). Reproducing the steps reproduces kubectl's output.

interface SortData {
  len: number;
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

const UNKNOWN = 0;
const INCREASING = 1;
const DECREASING = 2;

/** sort.Sort. */
function goSort(data: SortData): void {
  const n = data.len;
  if (n <= 1) return;
  pdqsort(data, 0, n, bitsLen(n));
}

/** sort.Sort over an array with a less function (the array is reordered in place). */
export function goSortArray<T>(xs: T[], less: (a: T, b: T) => boolean): T[] {
  goSort({
    len: xs.length,
    less: (i, j) => less(xs[i], xs[j]),
    swap: (i, j) => {
      const t = xs[i];
      xs[i] = xs[j];
      xs[j] = t;
    },
  });
  return xs;
}

function bitsLen(x: number): number {
  return x === 0 ? 0 : 32 - Math.clz32(x);
}

function insertionSort(d: SortData, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) for (let j = i; j > a && d.less(j, j - 1); j--) d.swap(j, j - 1);
}

function siftDown(d: SortData, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && d.less(first + child, first + child + 1)) child++;
    if (!d.less(first + root, first + child)) return;
    d.swap(first + root, first + child);
    root = child;
  }
}

function heapSort(d: SortData, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = ((hi - 1) / 2) | 0; i >= 0; i--) siftDown(d, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    d.swap(first, first + i);
    siftDown(d, 0, i, first);
  }
}

function pdqsort(d: SortData, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(d, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(d, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(d, a, b);
      limit--;
    }
    let [pivot, hint] = choosePivot(d, a, b);
    if (hint === DECREASING) {
      reverseRange(d, a, b);
      pivot = b - 1 - (pivot - a);
      hint = INCREASING;
    }
    if (wasBalanced && wasPartitioned && hint === INCREASING && partialInsertionSort(d, a, b)) return;
    if (a > 0 && !d.less(a - 1, pivot)) {
      a = partitionEqual(d, a, b, pivot);
      continue;
    }
    const [mid, alreadyPartitioned] = partition(d, a, b, pivot);
    wasPartitioned = alreadyPartitioned;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = (length / 8) | 0;
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(d, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(d, mid + 1, b, limit);
      b = mid;
    }
  }
}

function partition(d: SortData, a: number, b: number, pivot: number): [number, boolean] {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && d.less(i, a)) i++;
  while (i <= j && !d.less(j, a)) j--;
  if (i > j) {
    d.swap(j, a);
    return [j, true];
  }
  d.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && d.less(i, a)) i++;
    while (i <= j && !d.less(j, a)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  d.swap(j, a);
  return [j, false];
}

function partitionEqual(d: SortData, a: number, b: number, pivot: number): number {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !d.less(a, i)) i++;
    while (i <= j && d.less(a, j)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  return i;
}

function partialInsertionSort(d: SortData, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !d.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    d.swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
  }
  return false;
}

const MASK64 = (1n << 64n) - 1n;

function breakPatterns(d: SortData, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  // sort's xorshift (a uint64; shifts 13, 7, 17), seeded with the length. The variant matters:
  // with many equal keys partitions come out unbalanced and these swaps decide the order.
  let random = BigInt(length);
  const modulus = 2 ** bitsLen(length);
  for (let idx = a + ((length / 4) | 0) * 2 - 1; idx <= a + ((length / 4) | 0) * 2 + 1; idx++) {
    random ^= (random << 13n) & MASK64;
    random ^= random >> 7n;
    random ^= (random << 17n) & MASK64;
    let other = Number(random & BigInt(modulus - 1));
    if (other >= length) other -= length;
    d.swap(idx, a + other);
  }
}

function choosePivot(d: SortData, a: number, b: number): [number, number] {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { n: 0 };
  let i = a + ((l / 4) | 0) * 1;
  let j = a + ((l / 4) | 0) * 2;
  let k = a + ((l / 4) | 0) * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(d, i - 1, i, i + 1, swaps);
      j = median(d, j - 1, j, j + 1, swaps);
      k = median(d, k - 1, k, k + 1, swaps);
    }
    j = median(d, i, j, k, swaps);
  }
  return [j, swaps.n === 0 ? INCREASING : swaps.n === maxSwaps ? DECREASING : UNKNOWN];
}

function median(d: SortData, a: number, b: number, c: number, swaps: { n: number }): number {
  const order2 = (x: number, y: number): [number, number] => {
    if (d.less(y, x)) {
      swaps.n++;
      return [y, x];
    }
    return [x, y];
  };
  [a, b] = order2(a, b);
  [b, c] = order2(b, c);
  [a, b] = order2(a, b);
  return b;
}

function reverseRange(d: SortData, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) d.swap(i, j);
}
