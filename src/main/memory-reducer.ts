import { Script } from 'node:vm';

/** Lets V8's memory reducer shrink an idle process: one tiny cppgc allocation (`vm.Script`) per `intervalMs` while `quiet()`, since V8 rates a zero C++-heap allocation rate as high (docs/operations.md "Idle cost"); returns a stop function. */
export function keepMemoryReducerAwake(quiet: () => boolean = () => true, intervalMs = 1000): () => void {
  const timer = setInterval(() => quiet() && new Script('0'), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
