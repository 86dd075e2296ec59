// A colour per Deployment and pod-template-hash: the pods of one ReplicaSet share a colour, a
// canary or the new side of a rolling update gets another.
export function colorOf(key: string): string {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  const hue = (h >>> 0) % 360;
  return `hsl(${hue} 65% 45%)`;
}
