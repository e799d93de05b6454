/**
 * How an imported Every Eval Ever result is joined to its per-item series in the store: kept in the task's
 * provenance (`scoring.eee_results`) by the importer and read by as-recorded rescoring.
 */
export interface EeeResultJoin {
  evaluation_result_id: string | null;
  evaluation_name: string;
  /** The key of `reported` it is (null: lmaudit computed it on export; not a reported value). */
  reported: string | null;
  filter: string;
  metric: string;
  /**
   * The result's score_details.uncertainty.num_samples: what it was computed over. Kept with the join because an
   * lmaudit export's re-import restores the exported document count (a trimmed Inspect log's 1 document), not this
   * (its 79). Absent in stores made before it was kept.
   */
  num_samples?: number;
}
