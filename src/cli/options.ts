import { Option } from 'commander';

/** `--mode test|live`, required: which of the organisation's two modes the command acts on. */
export const modeOption = () =>
  new Option('--mode <mode>', 'test or live').choices(['test', 'live']).makeOptionMandatory();
