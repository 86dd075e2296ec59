// Registers the network commands in the terminal's NodeCommands registry (the default one
// unless given another). Importing this module registers them in the default registry.
import { type NodeCommands, nodeCommands } from "../node-commands.js";
import { NET_COMMANDS } from "./commands.js";

function registerNetCommands(registry: NodeCommands = nodeCommands): NodeCommands {
  for (const [name, fn] of Object.entries(NET_COMMANDS)) registry.register(name, fn);
  return registry;
}

registerNetCommands();
