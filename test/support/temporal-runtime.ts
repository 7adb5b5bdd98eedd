// Every test file: the Temporal SDK logs through a quiet pino logger instead of the console.
import { installTemporalRuntime } from '../../temporal/runtime.ts';
import { quietLogger } from './database.ts';

installTemporalRuntime(quietLogger);
