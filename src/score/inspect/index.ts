/**
 * What the Inspect scoring family offers the rest of lmaudit: its scorers as
 * extractors for the rescore matrix (`registerExtractors(INSPECT_EXTRACTORS)`),
 * and "as recorded" rescoring of imported Inspect logs.
 */
export { INSPECT_EXTRACTORS } from './extractors.ts';
export { rescoreInspectAsRecorded, type InspectRescoreCell, type MetricComparison, type SampleDifference } from './rescore.ts';
