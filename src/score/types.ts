/**
 * The rescoring seam. A cell of the matrix is (extractor × normaliser × aggregation).
 * An extractor reads one stored answer against its gold under a normaliser and
 * says what it took as the answer and the item's score. Extractors and normalisers
 * register by name (src/score/registry.ts); Inspect's scorers and lm-eval's filter
 * pipelines plug in through the same interfaces.
 */

/** What an extractor may look at for one item. */
export interface ItemView {
  readonly docId: string;
  /** Raw model output (first repeat). */
  readonly text: string;
  /** Gold answer as text (the first gold when there are several). */
  readonly gold: string;
  /** Answer choices, when the source recorded them. */
  readonly choices: readonly string[] | null;
  /** The gold under each normaliser, kept by whoever scores the item under many cells (see normalizedGold). */
  readonly goldForms?: Map<Normalizer, string>;
}

/** The item's gold under a normaliser, computed once per item when the item keeps its gold forms. */
export function normalizedGold(item: ItemView, normalizer: Normalizer): string {
  const forms = item.goldForms;
  if (forms === undefined) return normalizer.normalize(item.gold);
  let form = forms.get(normalizer);
  if (form === undefined) {
    form = normalizer.normalize(item.gold);
    forms.set(normalizer, form);
  }
  return form;
}

export interface Reading {
  /** The span taken as the answer (null: nothing found). */
  extracted: string | null;
  /** The item's score in [0, 1]. */
  value: number;
}

export interface Extractor {
  readonly name: string;
  readonly description: string;
  read(item: ItemView, normalizer: Normalizer): Reading;
  /** Compares normalised texts as texts (a substring test), which a normaliser to values cannot serve. */
  readonly needsTextForm?: true;
}

export interface Normalizer {
  readonly name: string;
  readonly description: string;
  normalize(text: string): string;
  /**
   * What `normalize` returns stands for a value (a number), not a text: equal values are equal
   * answers, but one value does not contain another ('30' does not contain the number 3).
   */
  readonly valueForm?: true;
}

/** Builds a parameterised extractor from the text after `name:` (e.g. `regex:<pattern>[:group]`). */
export type ExtractorFactory = (argument: string) => Extractor;

/** A span extractor scores 1 when the normalised span equals the normalised gold. */
export function spanExtractor(name: string, description: string, span: (text: string, item: ItemView) => string | null): Extractor {
  return {
    name,
    description,
    read(item, normalizer) {
      const extracted = span(item.text, item);
      const value = extracted !== null && normalizer.normalize(extracted) === normalizedGold(item, normalizer) ? 1 : 0;
      return { extracted, value };
    },
  };
}
