/** The vocabulary of SWE-bench's records that the importer writes and the as-recorded numbers read. */

/** The summary schema of swebench 2.0.0–2.0.2, which lists no submitted or empty-patch instances. */
export const V2_0_0 = 'v2 (2.0.0–2.0.2, no submitted/empty_patch)';
