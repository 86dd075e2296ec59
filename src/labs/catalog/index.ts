// Every lab of the catalog, in the order the catalog page lists them.
import canary from "./canary.js";
import clusteripWeb from "./clusterip-web.js";
import empty from "./empty.js";

export const CATALOG = [clusteripWeb, canary, empty];
