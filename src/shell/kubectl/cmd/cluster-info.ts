// kubectl cluster-info (pkg/cmd/clusterinfo): the control plane's and CoreDNS's addresses.

import { type KubectlCommand, noValidation } from "../command.js";

export const clusterInfoCommand: KubectlCommand<void> = {
  name: "cluster-info",
  complete() {},
  validate: noValidation,
  run(_o, ctx, out) {
    const ip = ctx.cluster.config.nodes.find((n) => n.controlPlane)?.ip ?? ctx.cluster.config.nodes[0].ip;
    out.out(`\x1b[0;32mKubernetes control plane\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443\x1b[0m\n\x1b[0;32mCoreDNS\x1b[0m is running at \x1b[0;33mhttps://${ip}:6443/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\x1b[0m\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`);
  },
};
