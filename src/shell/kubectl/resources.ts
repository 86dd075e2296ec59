// Resource names as kubectl resolves them through discovery: plural, singular, short name, kind,
// optionally qualified with the group ("deployments.apps").

import { RESOURCES, type ResourceInfo } from "../../engine/api/resources.js";

export function resolveType(name: string, served: (i: ResourceInfo) => boolean): ResourceInfo | undefined {
  const lower = name.toLowerCase();
  const dot = lower.indexOf(".");
  const base = dot < 0 ? lower : lower.slice(0, dot);
  const group = dot < 0 ? undefined : lower.slice(dot + 1);
  for (const info of RESOURCES) {
    if (group !== undefined && info.group !== group && `${info.version}.${info.group}` !== group) continue;
    if (!served(info)) continue;
    if (info.resource === base || info.singular === base || info.kind.toLowerCase() === base || info.shortNames.includes(base)) return info;
  }
  return undefined;
}

/** `kind.group/name`: how kubectl names an object in its messages. */
export function objRef(info: ResourceInfo, name: string): string {
  return `${info.kind.toLowerCase()}${info.group ? "." + info.group : ""}/${name}`;
}

/** `deployments.apps "web"`: how delete names what it deleted. */
export function qualified(info: ResourceInfo): string {
  return info.group ? `${info.resource}.${info.group}` : info.resource;
}
