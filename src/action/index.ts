/** The bundle's entry (dist/index.js): run the action with the real runner's clients. */
import { run } from "./main.js";

await run();
