/**
 * A browser's request named something this viewer does not serve (a source, run, task,
 * reading, column or page it does not have): the server answers 400 with the message,
 * which names the parameter and never a path on this machine.
 */
export class ViewRequestError extends Error {}
