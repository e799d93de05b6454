/** Port of lm_eval/tasks/truthfulqa/utils.py `process_docs_gen` (Dataset.map keeps the other columns in place). */
import { pyStrip } from '../../py/str.ts';

function formatAnswers(answers: string[]): string[] {
  const out: string[] = [];
  for (const raw of answers) {
    const answer = pyStrip(raw);
    if (answer.length > 0) out.push(answer.endsWith('.') ? answer : `${answer}.`);
  }
  return out;
}

export function processDocsGen(docs: Record<string, unknown>[]): Record<string, unknown>[] {
  return docs.map((doc) => {
    const incorrect = formatAnswers(doc.incorrect_answers as string[]);
    const correct = formatAnswers(doc.correct_answers as string[]);
    if (!correct.includes('I have no comment.')) correct.push('I have no comment.');
    return { ...doc, question: pyStrip(String(doc.question)), correct_answers: correct, incorrect_answers: incorrect };
  });
}
