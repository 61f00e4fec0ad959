import { scopedFields } from '../scoped/scoped-resource.dto';
import { BotDto } from './dto/bot.dto';
import { BotEntity } from './bot.entity';

export function toBotDto(bot: BotEntity): BotDto {
  return {
    ...scopedFields(bot),
    ghost_id: bot.ghostId,
  };
}
