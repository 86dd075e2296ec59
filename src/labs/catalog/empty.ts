import type { LabInput } from "../types.js";

export default {
  id: "empty",
  title: { en: "Empty cluster", zh: "空集群" },
  summary: {
    en: "A kubeadm v1.33 cluster (master, node1, node2) with only its system pods: a playground for anything.",
    zh: "一个 kubeadm v1.33 集群（master、node1、node2），只有系统 Pod：随意练习。",
  },
  level: "beginner",
  minutes: 30,
  objects: [],
  steps: [],
} satisfies LabInput;
