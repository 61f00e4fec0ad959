import { BotDto } from './dto/bot.dto';
import { BotEntity } from './bot.entity';

export function toBotDto(bot: BotEntity): BotDto {
  return {
    id: bot.id,
    name: bot.name,
    namespace: bot.namespace,
    owner_user_id: bot.ownerUserId,
    ghost_id: bot.ghostId,
    created_at: bot.createdAt.toISOString(),
    updated_at: bot.updatedAt.toISOString(),
  };
}
