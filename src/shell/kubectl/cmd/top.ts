// kubectl top (pkg/cmd/top): a kubeadm cluster has no metrics-server, so there is nothing to read.

import { type KubectlCommand, noValidation } from "../command.js";
import { KubectlError } from "../errors.js";

/** Its flags are not parsed: whatever the line asks, the Metrics API is what is missing. */
export const topCommand: KubectlCommand<void> = {
  name: "top",
  complete() {},
  validate: noValidation,
  run() {
    throw new KubectlError("Metrics API not available");
  },
};
